import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowedOrigin } from './cors-policy.js';
import { encodeResponse, type EncodedBody } from './response-compression.js';
import { ErrorCode } from '../errors/codes.js';
import type { Dispatcher } from '../rpc/dispatcher.js';
import { errorText, type ResponseBody } from '../rpc/response-text.js';
import { RpcRequest } from '../rpc/rpc-request.js';

/** Content types geth accepts for JSON-RPC over HTTP. */
const JSON_TYPES = ['application/json', 'application/json-rpc', 'application/jsonrequest'];

export interface RpcPostOptions {
  readonly bodyLimit: number;
  readonly corsOrigins: readonly string[];
  readonly parseError: string;
}

function isJsonType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semicolon = header.indexOf(';');
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return JSON_TYPES.includes(type);
}

/**
 * Called when a request has been answered or abandoned; `error` is a failure nobody expected. Calls
 * after the first are ignored.
 */
export type RequestFinished = (error?: unknown) => void;

/**
 * Serves JSON-RPC POST requests straight on node:http. This is the hot path of every method, so
 * it reads the body, dispatches and writes the answer in one pass, with a completion callback
 * rather than a chain of promises: a koa middleware stack here cost 40% of the throughput
 * (tools/bench/rpc.ts), and each promise turn a few percent more on the cheapest methods.
 */
export class RpcPostHandler {
  #nextRequestId = 0;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly options: RpcPostOptions,
  ) {}

  handle(req: IncomingMessage, res: ServerResponse, finished: RequestFinished): void {
    const { bodyLimit } = this.options;
    if (Number(req.headers['content-length'] ?? 0) > bodyLimit) return this.#tooLarge(req, res, finished);
    if (!isJsonType(req.headers['content-type'])) {
      const text = 'invalid content type, only application/json is supported';
      return this.#send(req, res, finished, 415, 'text/plain; charset=utf-8', text);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > bodyLimit) {
        req.removeAllListeners('data');
        this.#tooLarge(req, res, finished);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > bodyLimit) return;
      try {
        this.#answer(req, res, finished, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      } catch (error) {
        finished(error);
      }
    });
    // A client that went away has nothing to answer.
    req.on('error', () => finished());
  }

  #answer(req: IncomingMessage, res: ServerResponse, finished: RequestFinished, bytes: Buffer): void {
    // Invalid UTF-8 becomes U+FFFD, as in geth's decoder.
    const raw = bytes.toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return this.#send(req, res, finished, 200, 'application/json', this.options.parseError);
    }
    const request = new RpcRequest(
      'http',
      (req.headers['x-request-id'] as string | undefined) ?? String(++this.#nextRequestId),
      undefined,
    );
    const dispatched = this.dispatcher.dispatch(body, raw, request);
    if (!(dispatched instanceof Promise)) {
      return this.#send(req, res, finished, 200, 'application/json', dispatched ?? '', request.responseHeaders);
    }
    dispatched
      .then((answer) => this.#send(req, res, finished, 200, 'application/json', answer ?? '', request.responseHeaders))
      .catch(finished);
  }

  #tooLarge(req: IncomingMessage, res: ServerResponse, finished: RequestFinished): void {
    const error = {
      code: ErrorCode.InvalidRequest,
      message: `request body too large: the limit is ${this.options.bodyLimit} bytes`,
    };
    // The rest of an oversized body is not read: closing the connection discards it.
    const text = errorText('null', error);
    this.#send(req, res, finished, 413, 'application/json', text, [['Connection', 'close']]);
  }

  /** Writes the answer once, with CORS and, when asked and worth it, compressed. */
  #send(
    req: IncomingMessage,
    res: ServerResponse,
    finished: RequestFinished,
    status: number,
    type: string,
    text: ResponseBody,
    extraHeaders?: readonly (readonly [string, string])[],
  ): void {
    // A flat header list goes straight to the socket: no per-header validation on the hot path.
    const headers = ['Content-Type', type];
    const origin = req.headers.origin;
    if (origin !== undefined) {
      headers.push('Vary', 'Origin');
      const allowed = allowedOrigin(this.options.corsOrigins, origin);
      if (allowed !== '') headers.push('Access-Control-Allow-Origin', allowed);
    }
    if (extraHeaders !== undefined) for (const [name, value] of extraHeaders) headers.push(name, value);
    const encoded = encodeResponse(text, req.headers['accept-encoding']);
    if (encoded instanceof Promise) {
      encoded.then((compressed) => write(res, status, headers, compressed, finished)).catch(finished);
    } else {
      write(res, status, headers, encoded, finished);
    }
  }
}

function write(
  res: ServerResponse,
  status: number,
  headers: string[],
  { body, encoding }: EncodedBody,
  finished: RequestFinished,
): void {
  if (encoding !== undefined) headers.push('Content-Encoding', encoding);
  headers.push('Content-Length', String(Buffer.byteLength(body)));
  res.writeHead(status, headers);
  res.end(body);
  finished();
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowedOrigin } from './cors-policy.js';
import { encodeResponse } from './response-compression.js';
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
 * Serves JSON-RPC POST requests straight on node:http. This is the hot path of every method, so
 * it reads the body, dispatches and writes the answer in one pass; a koa middleware stack here
 * cost 40% of the throughput (tools/bench/rpc.ts).
 */
export class RpcPostHandler {
  #nextRequestId = 0;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly options: RpcPostOptions,
  ) {}

  handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { bodyLimit } = this.options;
    if (Number(req.headers['content-length'] ?? 0) > bodyLimit) return this.#tooLarge(req, res);
    if (!isJsonType(req.headers['content-type'])) {
      return this.#send(
        req,
        res,
        415,
        'text/plain; charset=utf-8',
        'invalid content type, only application/json is supported',
      );
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > bodyLimit) {
          req.removeAllListeners('data');
          this.#tooLarge(req, res).then(resolve, reject);
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        if (size <= bodyLimit)
          this.#answer(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).then(resolve, reject);
      });
      // A client that went away has nothing to answer.
      req.on('error', () => resolve());
    });
  }

  async #answer(req: IncomingMessage, res: ServerResponse, bytes: Buffer): Promise<void> {
    // Invalid UTF-8 becomes U+FFFD, as in geth's decoder.
    const raw = bytes.toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return this.#send(req, res, 200, 'application/json', this.options.parseError);
    }
    const request = new RpcRequest(
      'http',
      (req.headers['x-request-id'] as string | undefined) ?? String(++this.#nextRequestId),
      undefined,
    );
    const dispatched = this.dispatcher.dispatch(body, raw, request);
    const answer = typeof dispatched === 'object' ? await dispatched : dispatched;
    return this.#send(req, res, 200, 'application/json', answer ?? '', request.responseHeaders);
  }

  #tooLarge(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const error = {
      code: ErrorCode.InvalidRequest,
      message: `request body too large: the limit is ${this.options.bodyLimit} bytes`,
    };
    // The rest of an oversized body is not read: closing the connection discards it.
    return this.#send(req, res, 413, 'application/json', errorText('null', error), [['Connection', 'close']]);
  }

  /** Writes the answer once, with CORS and, when asked and worth it, compressed. */
  async #send(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    type: string,
    text: ResponseBody,
    extraHeaders?: readonly (readonly [string, string])[],
  ): Promise<void> {
    // A flat header list goes straight to the socket: no per-header validation on the hot path.
    const headers = ['Content-Type', type];
    const origin = req.headers.origin;
    if (origin !== undefined) {
      headers.push('Vary', 'Origin');
      const allowed = allowedOrigin(this.options.corsOrigins, origin);
      if (allowed !== '') headers.push('Access-Control-Allow-Origin', allowed);
    }
    if (extraHeaders !== undefined) for (const [name, value] of extraHeaders) headers.push(name, value);
    const { body, encoding } = await encodeResponse(text, req.headers['accept-encoding']);
    if (encoding !== undefined) headers.push('Content-Encoding', encoding);
    headers.push('Content-Length', String(Buffer.byteLength(body)));
    res.writeHead(status, headers);
    res.end(body);
  }
}

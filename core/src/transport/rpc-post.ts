import { allowedOrigin } from './cors-policy.js';
import { encodeResponse, type EncodedBody } from './response-compression.js';
import { clientOf } from './peer-address.js';
import { UNFINISHED_REQUESTS_BUSY } from './unfinished-requests.js';
import { INVALID_HOST, type HostCheck } from './virtual-hosts.js';
import { ErrorCode } from '../errors/codes.js';
import type { Dispatcher } from '../rpc/dispatcher.js';
import { readRequestJsonInTurn } from '../rpc/request-json.js';
import { bodyLength, errorText, type ResponseBody } from '../rpc/response-text.js';
import { RpcRequest } from '../rpc/rpc-request.js';

/** Content types geth accepts for JSON-RPC over HTTP. */
const JSON_TYPES = ['application/json', 'application/json-rpc', 'application/jsonrequest'];
const PLAIN_TEXT = 'text/plain; charset=utf-8';

export interface RpcPostOptions {
  readonly bodyLimit: number;
  readonly corsOrigins: readonly string[];
  /** The answer to a body that could not be read as a request (`Dispatcher.unreadable`). */
  unreadable(error: unknown): string;
  readonly hostAllowed: HostCheck;
}

/** What a JSON-RPC POST's answer depends on beside its body: request headers and the peer. */
export interface PostHeaders {
  readonly contentLength: string | undefined;
  readonly contentType: string | undefined;
  readonly origin: string | undefined;
  readonly host: string | undefined;
  readonly acceptEncoding: string | undefined;
  readonly requestId: string | undefined;
  /** The peer's address: the client identity behind per-client shares; loopback peers get answers uncompressed. */
  readonly remoteAddress: string | undefined;
}

/** An answer ready to write: status, a flat header list (Content-Length included) and the body. */
export interface PostAnswer {
  readonly status: number;
  readonly headers: string[];
  readonly body: ResponseBody;
  /** The connection is to be closed after this answer (an oversized body is not read to its end). */
  readonly close: boolean;
}

/**
 * Called once with the answer, or with a failure nobody expected. At once when nothing in the
 * call was asynchronous: a promise turn per request shows in the throughput of the cheapest methods.
 */
export type AnswerSink = (answer: PostAnswer | Error) => void;

function isJsonType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semicolon = header.indexOf(';');
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return JSON_TYPES.includes(type);
}

/**
 * JSON-RPC over HTTP POST, apart from the HTTP server that reads and writes it: the checks made
 * before the body is read (403 by Host, 413 by Content-Length, 415), dispatch, CORS and compression.
 */
export class RpcPostService {
  #nextRequestId = 0;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly options: RpcPostOptions,
  ) {}

  get bodyLimit(): number {
    return this.options.bodyLimit;
  }

  /** The answer to a request refused on its headers alone, or undefined when its body is to be read. */
  refusal(headers: PostHeaders): PostAnswer | undefined {
    if (!this.options.hostAllowed(headers.host)) {
      return this.#plainAnswer(403, PLAIN_TEXT, INVALID_HOST, headers, false);
    }
    if (Number(headers.contentLength ?? 0) > this.options.bodyLimit) return this.tooLarge(headers);
    if (isJsonType(headers.contentType)) return undefined;
    const text = 'invalid content type, only application/json is supported';
    return this.#plainAnswer(415, PLAIN_TEXT, text, headers, false);
  }

  /** 413; the rest of an oversized body is not read: closing the connection discards it. */
  tooLarge(headers: PostHeaders): PostAnswer {
    const error = {
      code: ErrorCode.InvalidRequest,
      message: `request body too large: the limit is ${this.options.bodyLimit} bytes`,
    };
    return this.#plainAnswer(413, 'application/json', errorText('null', error), headers, true);
  }

  /** 503 to a body closed for room among the requests being received (UnfinishedRequests); the rest is not read. */
  busyReceiving(headers: PostHeaders): PostAnswer {
    const error = { code: ErrorCode.LimitExceeded, message: UNFINISHED_REQUESTS_BUSY };
    return this.#plainAnswer(503, 'application/json', errorText('null', error), headers, true);
  }

  /**
   * Dispatches a request body and hands its answer to `sink`; returns the request its calls run
   * in, for the transport to abort if the client goes away.
   */
  answer(bytes: Buffer, headers: PostHeaders, sink: AnswerSink): RpcRequest {
    const requestId = headers.requestId ?? String(++this.#nextRequestId);
    const clientId = clientOf(headers.remoteAddress);
    const request = new RpcRequest('http', requestId, undefined, clientId, headers.origin);
    readRequestJsonInTurn(
      bytes,
      clientId,
      (body, raw) => this.#dispatch(body, raw, headers, request, sink),
      (error) => this.#encode(200, this.options.unreadable(error), headers, undefined, sink),
    );
    return request;
  }

  #dispatch(body: unknown, raw: string, headers: PostHeaders, request: RpcRequest, sink: AnswerSink): void {
    const dispatched = this.dispatcher.dispatch(body, raw, request);
    if (dispatched instanceof Promise) {
      dispatched
        .then((answer) => this.#encode(200, answer ?? '', headers, request, sink))
        .catch((error: unknown) => sink(error instanceof Error ? error : new Error(String(error))));
    } else {
      this.#encode(200, dispatched ?? '', headers, request, sink);
    }
  }

  /**
   * A JSON answer with CORS, the headers its calls set and, when asked and worth it, compressed,
   * unless one of those headers asks for it to go uncompressed.
   */
  #encode(
    status: number,
    text: ResponseBody,
    headers: PostHeaders,
    request: RpcRequest | undefined,
    sink: AnswerSink,
  ): void {
    const list = this.#headerList('application/json', headers, request?.responseHeaders);
    const encoded =
      request?.uncompressed === true
        ? { body: text }
        : encodeResponse(text, headers.acceptEncoding, headers.remoteAddress);
    if (encoded instanceof Promise) {
      encoded.then((compressed) => sink(answerOf(status, list, compressed, false)), sink);
    } else {
      sink(answerOf(status, list, encoded, false));
    }
  }

  #plainAnswer(status: number, type: string, text: string, headers: PostHeaders, close: boolean): PostAnswer {
    return answerOf(status, this.#headerList(type, headers, undefined), { body: text }, close);
  }

  #headerList(
    type: string,
    headers: PostHeaders,
    extraHeaders: readonly (readonly [string, string])[] | undefined,
  ): string[] {
    const list = ['Content-Type', type];
    if (headers.origin !== undefined) {
      list.push('Vary', 'Origin');
      const allowed = allowedOrigin(this.options.corsOrigins, headers.origin);
      if (allowed !== '') list.push('Access-Control-Allow-Origin', allowed);
    }
    if (extraHeaders !== undefined) for (const [name, value] of extraHeaders) list.push(name, value);
    return list;
  }
}

function answerOf(status: number, headers: string[], { body, encoding }: EncodedBody, close: boolean): PostAnswer {
  if (encoding !== undefined) headers.push('Content-Encoding', encoding);
  headers.push('Content-Length', String(bodyLength(body)));
  if (close) headers.push('Connection', 'close');
  return { status, headers, body, close };
}

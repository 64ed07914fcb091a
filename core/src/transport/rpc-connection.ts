import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { HTTPParser, type HeaderInfo, type HTTPParserJS } from 'http-parser-js';
import type { PostAnswer, PostHeaders, RpcPostService } from './rpc-post.js';

const POST = HTTPParser.methods.indexOf('POST');
const POST_PREFIX = 'POST ';

/** What a connection needs from the server that accepted it. */
export interface ConnectionHost {
  readonly service: RpcPostService;
  readonly readTimeoutMs: number;
  readonly idleTimeoutMs: number;
  /** Gives the socket, and the bytes already read from it, to node:http. */
  handOff(socket: Socket, unread: Buffer): void;
  requestStarted(): void;
  requestFinished(): void;
  /** A failure nobody expected, to log; the request gets a 500. */
  failed(error: Error): void;
  closed(connection: RpcConnection): void;
}

/** A request's place in the line of answers: HTTP/1.1 answers in the order the requests came. */
interface Slot {
  answer: PostAnswer | undefined;
  readonly keepAlive: boolean;
}

/** The request being read. */
interface IncomingPost {
  readonly headers: PostHeaders;
  readonly slot: Slot;
  readonly chunks: Buffer[];
  size: number;
  /** Answered before its body was read (415): the body is read and dropped. */
  answered: boolean;
}

/** node:http's limit on the request line and headers together. */
const MAX_HEADER_BYTES = 16 * 1024;
/** The parser's message when a head is over its limit. */
const HEADERS_TOO_LARGE = 'max header size exceeded';

/** The size of a request's head as sent, near enough for the limit. */
function headBytes({ url, headers }: HeaderInfo): number {
  let bytes = url.length + 16;
  for (const field of headers) bytes += field.length + 2;
  return bytes;
}

/** A plain-text answer after which the connection closes. */
function closingAnswer(status: number, text: string): PostAnswer {
  const headers = ['Content-Type', 'text/plain; charset=utf-8', 'Content-Length', String(Buffer.byteLength(text))];
  return { status, headers: [...headers, 'Connection', 'close'], body: text, close: true };
}

const INTERNAL_ERROR = closingAnswer(500, '');

/**
 * One HTTP/1.1 connection that posts JSON-RPC: requests parsed with http-parser-js, answers
 * written straight to the socket. node:http's request and response streams cost about a third of
 * the throughput of the cheapest methods (tools/bench/methods.ts). A request of any other method
 * hands the connection to node:http (the operator endpoints, CORS preflight), which serves it from
 * then on.
 */
export class RpcConnection {
  readonly #parser = new HTTPParser(HTTPParser.REQUEST);
  readonly #slots: Slot[] = [];
  /** Bytes of a request have come and its end has not (headers included). */
  #midRequest = false;
  #reading: IncomingPost | undefined;
  #readTimer: NodeJS.Timeout | undefined;
  /** Set once a request of another method arrived: bytes kept for node:http until the answers before it are out. */
  #handOffBytes: Buffer[] | undefined;
  /** No more requests are read: the connection closes once the answers owed are written. */
  #closing = false;

  readonly #onData = (chunk: Buffer): void => this.#data(chunk);
  readonly #onTimeout = (): void => this.#idle();
  readonly #onError = (): void => void this.socket.destroy();
  readonly #onClose = (): void => this.#closed();

  constructor(
    private readonly socket: Socket,
    private readonly host: ConnectionHost,
  ) {
    this.#parser[HTTPParser.kOnHeadersComplete] = (info: HeaderInfo) => this.#headersComplete(info);
    this.#parser[HTTPParser.kOnBody] = (chunk: Buffer, offset: number, length: number) =>
      this.#body(chunk.subarray(offset, offset + length));
    this.#parser[HTTPParser.kOnMessageComplete] = () => this.#messageComplete();
    this.#parser.maxHeaderSize = MAX_HEADER_BYTES;
    socket.setNoDelay(true);
    socket.setTimeout(host.idleTimeoutMs);
    socket.on('data', this.#onData);
    socket.on('timeout', this.#onTimeout);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
  }

  /** True when no request is being read or answered. */
  get idle(): boolean {
    return !this.#midRequest && this.#slots.length === 0;
  }

  /** Stops reading requests: closes now when idle or `now`, else once the answers owed are written. */
  close(now = false): void {
    this.#closing = true;
    if (now || this.idle) this.socket.destroy();
  }

  #data(chunk: Buffer): void {
    if (this.#handOffBytes !== undefined) {
      this.#handOffBytes.push(chunk);
      return;
    }
    if (this.#closing) return;
    // Between requests, the first bytes tell a POST from anything else.
    if (!this.#midRequest && !startsLikePost(chunk)) return this.#handOff(chunk);
    const parsed = this.#parser.execute(chunk);
    if (parsed instanceof Error) return this.#refuseMalformed(parsed);
    // A pipelining client's chunk may end inside its next request.
    this.#midRequest = !betweenRequests(this.#parser);
    if (this.#midRequest) this.#readTimer ??= setTimeout(() => this.#readTimedOut(), this.host.readTimeoutMs);
  }

  #headersComplete(info: HeaderInfo): void {
    // An Upgrade header (h2c) is ignored, as node:http does without an 'upgrade' listener.
    if (info.method !== POST) {
      // Only a client that pipelines a request of another method behind a POST gets here. Closing
      // after the answers owed tells it to send that request again on a new connection (RFC 9112 §9.3.2).
      this.#closing = true;
      return;
    }
    // The parser checks its limit only on heads that span reads; this catches those that do not.
    if (headBytes(info) > MAX_HEADER_BYTES) return this.#refuseMalformed(new Error(HEADERS_TOO_LARGE));
    const { expect, ...headers } = postHeaders(info.headers, this.socket.remoteAddress);
    const slot = this.#newSlot(info.shouldKeepAlive);
    const refusal = this.host.service.refusal(headers);
    this.#reading = { headers, slot, chunks: [], size: 0, answered: refusal !== undefined };
    if (refusal !== undefined) return this.#answer(slot, refusal);
    // node:http answers this on its own; curl asks it for bodies over 1 KiB.
    if (expect?.toLowerCase() === '100-continue') this.socket.write('HTTP/1.1 100 Continue\r\n\r\n');
  }

  #body(chunk: Buffer): void {
    const reading = this.#reading;
    if (reading === undefined || reading.answered) return;
    reading.size += chunk.length;
    if (reading.size > this.host.service.bodyLimit) {
      reading.answered = true;
      this.#answer(reading.slot, this.host.service.tooLarge(reading.headers));
      return;
    }
    reading.chunks.push(chunk);
  }

  #messageComplete(): void {
    const reading = this.#reading;
    this.#reading = undefined;
    clearTimeout(this.#readTimer);
    this.#readTimer = undefined;
    if (reading === undefined || reading.answered) return;
    const { chunks, slot } = reading;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    try {
      this.host.service.answer(body, reading.headers, (answer) => this.#answer(slot, answer));
    } catch (error) {
      this.#answer(slot, error instanceof Error ? error : new Error(String(error)));
    }
  }

  #answer(slot: Slot, answer: PostAnswer | Error): void {
    if (answer instanceof Error) {
      this.host.failed(answer);
      answer = INTERNAL_ERROR;
    }
    slot.answer = answer;
    if (answer.close) this.#closing = true;
    this.#flush();
  }

  /** Writes the answers that are ready, in request order. */
  #flush(): void {
    while (this.#slots.length > 0 && this.#slots[0]!.answer !== undefined) {
      const slot = this.#slots.shift()!;
      const answer = slot.answer!;
      this.host.requestFinished();
      // After the last answer the socket is ending: answers to requests pipelined behind it are dropped.
      if (this.socket.writableEnded || this.socket.destroyed) continue;
      const last = answer.close || !slot.keepAlive || (this.#closing && this.#slots.length === 0);
      writeAnswer(this.socket, answer, last && !answer.close);
      if (last) this.socket.end();
    }
    if (this.#slots.length === 0 && this.#handOffBytes !== undefined) this.#handOff(Buffer.concat(this.#handOffBytes));
  }

  #handOff(unread: Buffer): void {
    if (this.#slots.length > 0) {
      // node:http must not answer before the answers this connection still owes.
      this.#handOffBytes ??= [unread];
      return;
    }
    this.#detach();
    this.socket.setTimeout(0);
    this.host.handOff(this.socket, unread);
  }

  #idle(): void {
    if (this.idle) this.socket.destroy();
  }

  /** A request not read whole within `read_timeout` (a slow or stalled client) gets 408, as from node:http. */
  #readTimedOut(): void {
    this.#readTimer = undefined;
    if (!this.#midRequest) return;
    this.#closing = true;
    const slot = this.#reading?.slot ?? this.#newSlot(false);
    this.#reading = undefined;
    this.#answer(slot, closingAnswer(408, ''));
  }

  #refuseMalformed(error: Error): void {
    this.#closing = true;
    const slot = this.#reading?.slot ?? this.#newSlot(false);
    this.#reading = undefined;
    const tooLarge = error.message === HEADERS_TOO_LARGE;
    this.#answer(slot, closingAnswer(tooLarge ? 431 : 400, tooLarge ? '' : `bad request: ${error.message}`));
  }

  #newSlot(keepAlive: boolean): Slot {
    const slot: Slot = { answer: undefined, keepAlive };
    this.#slots.push(slot);
    this.host.requestStarted();
    return slot;
  }

  #closed(): void {
    clearTimeout(this.#readTimer);
    // Answers still owed will not be written; their requests are over.
    for (let index = 0; index < this.#slots.length; index++) this.host.requestFinished();
    this.#slots.length = 0;
    this.#detach();
    this.host.closed(this);
  }

  #detach(): void {
    this.socket.off('data', this.#onData);
    this.socket.off('timeout', this.#onTimeout);
    this.socket.off('error', this.#onError);
    this.socket.off('close', this.#onClose);
  }
}

/**
 * True when the parser has finished a request and holds nothing of the next: its position is
 * kept in `state` and an unfinished line in `line`, which its typings leave out.
 */
function betweenRequests(parser: HTTPParserJS): boolean {
  const { state, line } = parser as unknown as { state: string; line: string };
  return state === 'REQUEST_LINE' && line === '';
}

/** True unless the bytes cannot begin a POST request line (a short read may be its first letters). */
function startsLikePost(chunk: Buffer): boolean {
  const length = Math.min(chunk.length, POST_PREFIX.length);
  return chunk.toString('latin1', 0, length) === POST_PREFIX.slice(0, length);
}

/** The headers the answer depends on, from the raw name/value list. */
function postHeaders(
  raw: readonly string[],
  remoteAddress: string | undefined,
): PostHeaders & { expect: string | undefined } {
  const found: Record<string, string | undefined> = {};
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    // The first of repeated headers counts, as node:http does for these.
    found[name] ??= raw[index + 1];
  }
  return {
    contentLength: found['content-length'],
    contentType: found['content-type'],
    origin: found.origin,
    host: found.host,
    acceptEncoding: found['accept-encoding'],
    requestId: found['x-request-id'],
    remoteAddress,
    expect: found.expect,
  };
}

let dateSecond = 0;
let dateText = '';

/** The Date header value, formatted once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

function writeAnswer(socket: Socket, { status, headers, body }: PostAnswer, addClose: boolean): void {
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
  for (let index = 0; index < headers.length; index += 2) head += `${headers[index]}: ${headers[index + 1]}\r\n`;
  head += `Date: ${httpDate()}\r\n`;
  if (addClose) head += 'Connection: close\r\n';
  head += '\r\n';
  if (typeof body === 'string') {
    socket.write(head + body);
  } else {
    socket.cork();
    socket.write(head);
    socket.write(body);
    socket.uncork();
  }
}

import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import { lengthOf, RawJson } from './raw-json.js';
import type { RpcErrorObject } from '../errors/rpc-error.js';

/**
 * A response as it goes on the wire: text, or UTF-8 bytes for a result that is already JSON
 * ({@link RawJson}: megabytes of logs are never turned into a string), in pieces when it came in
 * pieces: joining a 128 MiB trace held the node's thread for 60 ms and the bytes twice.
 */
export type ResponseBody = string | Buffer | readonly Uint8Array[];

/** The bytes of `body`. */
export function bodyLength(body: ResponseBody): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (Buffer.isBuffer(body)) return body.length;
  return lengthOf(body);
}

/** A WebSocket message in pieces is sent in fragments of about this size. */
const WS_FRAGMENT_BYTES = 1024 * 1024;

/** A piece of at least this size is a fragment of its own, not copied into a joined one. */
const WS_OWN_FRAGMENT_BYTES = 64 * 1024;

/**
 * `body` as the fragments of one WebSocket message: a large piece as it is, smaller ones joined up
 * to about 1 MiB. Writing each small piece as a frame of its own took longer than joining a 25 MB
 * batch of blocks (some 10 ms); joining a log query's answer of up to `max_held_answer_bytes`
 * (256 MiB) in one piece held the node's thread for 0.8 s; and joining the megabyte pieces of a
 * batch of log queries copied all of it (35 ms for 10 MB).
 */
export function wsFragments(body: ResponseBody): (string | Buffer)[] {
  if (typeof body === 'string' || Buffer.isBuffer(body)) return [body];
  const fragments: Buffer[] = [];
  let run: Uint8Array[] = [];
  let runBytes = 0;
  const endRun = () => {
    // A piece alone is sent as it is, not copied.
    const [only] = run;
    fragments.push(run.length === 1 ? bufferOf(only!) : Buffer.concat(run, runBytes));
    run = [];
    runBytes = 0;
  };
  for (const piece of body) {
    if (piece.length >= WS_OWN_FRAGMENT_BYTES) {
      if (run.length > 0) endRun();
      fragments.push(bufferOf(piece));
      continue;
    }
    run.push(piece);
    runBytes += piece.length;
    if (runBytes >= WS_FRAGMENT_BYTES) endRun();
  }
  if (run.length > 0 || fragments.length === 0) endRun();
  return fragments;
}

/** `bytes` as a Buffer over the same memory. */
function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

const RESULT_END = Buffer.from('}');

/** Raw results up to this size (an empty filter poll) are cheaper to send as text than as bytes. */
const SMALL_RAW_BYTES = 4096;

/** `{"jsonrpc":"2.0","id":<id>,"result":<result>}`, built as text so that ids keep their exact digits. */
export function resultText(idText: string, result: unknown): ResponseBody {
  if (result instanceof RawJson && result.length > SMALL_RAW_BYTES) {
    return [Buffer.from(`{"jsonrpc":"2.0","id":${idText},"result":`), ...result.parts, RESULT_END];
  }
  const text = result instanceof RawJson ? result.bytes.toString('utf8') : (JSON.stringify(result) ?? 'null');
  return `{"jsonrpc":"2.0","id":${idText},"result":${text}}`;
}

export function errorText(idText: string, error: RpcErrorObject): string {
  return `{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify(error)}}`;
}

/** A valid JSON-RPC id: a string, a number or null. */
export function isValidId(id: unknown): boolean {
  return typeof id === 'string' || typeof id === 'number' || id === null;
}

/**
 * The ids of a request as their exact source text. JSON.parse rounds integers beyond 2^53, so
 * such an id is read again from the raw body, losslessly; that parse happens only when needed.
 */
export class IdTexts {
  #lossless: unknown;
  #parsed = false;

  constructor(private readonly rawBody: string | undefined) {}

  /** The text of `id`, the id of the batch element at `index` (-1 for a single request). */
  text(id: unknown, index: number): string {
    if (typeof id !== 'number' || Number.isSafeInteger(id)) return JSON.stringify(id);
    return this.#sourceText(index) ?? JSON.stringify(id);
  }

  #sourceText(index: number): string | undefined {
    if (!this.#parsed) {
      this.#parsed = true;
      try {
        this.#lossless = this.rawBody === undefined ? undefined : parseLossless(this.rawBody);
      } catch {
        this.#lossless = undefined;
      }
    }
    const message: unknown = index === -1 ? this.#lossless : (this.#lossless as unknown[] | undefined)?.[index];
    const id = typeof message === 'object' && message !== null ? (message as { id?: unknown }).id : undefined;
    return isLosslessNumber(id) ? id.value : undefined;
  }
}

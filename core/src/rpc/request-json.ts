import { Worker } from 'node:worker_threads';
import { inClientTurn } from './client-turns.js';
import { limitFault } from './request-json-limits.js';

export { MAX_JSON_VALUES, MAX_NESTING_DEPTH, MAX_DISTINCT_KEYS } from './request-json-limits.js';

/**
 * Bodies up to this many bytes are parsed and checked on the node's thread at once: a few
 * milliseconds at most. A longer one is checked on a thread of its own first, so that a body built
 * to be slow to parse never holds the node's thread; only one within the limits is parsed here.
 */
const CHECKED_HERE_BYTES = 256 * 1024;
/** The checking thread parses one body at a time: the largest, of tiny values, takes ~150 MB of heap. */
const CHECK_THREAD_HEAP_MB = 512;
/**
 * Long bodies waiting for the checking thread, in bytes, at most: each is held until its turn, so
 * a flood of them would otherwise hold gigabytes. Past it, a long body is refused at once.
 */
const MAX_WAITING_BYTES = 64 * 1024 * 1024;

/** A long body refused because too many wait to be read: a refusal that a retry can cure. */
export class RequestJsonBusyError extends Error {
  constructor() {
    super('server busy: too many large requests waiting to be read');
  }
}

/** A body the checking thread is asked about, handed over to it. */
export interface BodyCheck {
  readonly id: number;
  readonly bytes: Uint8Array;
}

/** Its answer: why the body is refused, or undefined; and the body, handed back. */
export interface BodyVerdict {
  readonly id: number;
  readonly fault: string | undefined;
  readonly bytes: Uint8Array;
}

/** A short body's JSON value; throws as `JSON.parse` does, or a SyntaxError past the limits. */
function parseChecked(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const fault = limitFault(value);
  if (fault !== undefined) throw new SyntaxError(fault);
  return value;
}

/**
 * A request body's JSON value, as `JSON.parse` gives it; a SyntaxError, as `JSON.parse` throws,
 * when the body is not JSON or exceeds the limits (`MAX_NESTING_DEPTH`, `MAX_JSON_VALUES`,
 * `MAX_DISTINCT_KEYS`); a {@link RequestJsonBusyError} when a long body finds too many others
 * waiting. Given as bytes, a long body is handed to the checking thread, not copied: the caller
 * must not read them afterwards.
 */
export async function parseRequestJson(body: string | Buffer): Promise<unknown> {
  if (body.length <= CHECKED_HERE_BYTES) return parseChecked(typeof body === 'string' ? body : body.toString('utf8'));
  const verdict = await checkThread.check(typeof body === 'string' ? Buffer.from(body) : body);
  if (verdict.fault !== undefined) throw new SyntaxError(verdict.fault);
  return JSON.parse(verdict.bytes.toString('utf8'));
}

/**
 * Reads a request body in `client`'s turns of the node's thread (`ClientTurns`) and hands its JSON
 * value and text to `serve`, or what {@link parseRequestJson} would reject with to `refuse`. A body
 * waits for its turn as bytes, outside the JS heap (a hundred waiting bodies as strings tripled the
 * time spent collecting garbage). A short one is read and served in one turn. A long one is
 * checked on the checking thread before it waits, then made a string, parsed and served in turns
 * of their own: over megabytes, each step takes 10–30 ms. Invalid UTF-8 becomes U+FFFD, as in
 * geth's decoder. As with {@link parseRequestJson}, a long body is handed over.
 */
export function readRequestJsonInTurn(
  bytes: Buffer,
  client: string,
  serve: (body: unknown, text: string) => void,
  refuse: (error: unknown) => void,
): void {
  const read = (text: string, parse: (text: string) => unknown, then: (body: unknown) => void): void => {
    let body: unknown;
    try {
      body = parse(text);
    } catch (error) {
      refuse(error);
      return;
    }
    then(body);
  };
  if (bytes.length <= CHECKED_HERE_BYTES) {
    inClientTurn(client, () => {
      const text = bytes.toString('utf8');
      read(text, parseChecked, (body) => serve(body, text));
    });
    return;
  }
  const goOn = (work: () => void): void => inClientTurn(client, work, true);
  checkThread.check(bytes).then(({ fault, bytes: checked }) => {
    if (fault !== undefined) {
      refuse(new SyntaxError(fault));
      return;
    }
    inClientTurn(client, () => {
      const text = checked.toString('utf8');
      goOn(() => read(text, JSON.parse, (body) => goOn(() => serve(body, text))));
    });
  }, refuse);
}

/** A body as the checking thread hands it back. */
interface CheckedBody {
  readonly fault: string | undefined;
  readonly bytes: Buffer;
}

/**
 * The checking thread, started with the first long body; it holds no work between bodies. A body
 * is transferred to it and back, not copied: a copy of megabytes costs the node's thread as much
 * as a parse.
 */
class CheckThread {
  #worker: Worker | undefined;
  readonly #waiting = new Map<number, { readonly size: number; resolve(verdict: CheckedBody): void }>();
  #waitingBytes = 0;
  #nextId = 0;

  async check(bytes: Buffer): Promise<CheckedBody> {
    if (this.#waitingBytes + bytes.length > MAX_WAITING_BYTES) throw new RequestJsonBusyError();
    const id = this.#nextId++;
    this.#waitingBytes += bytes.length;
    const verdict = new Promise<CheckedBody>((resolve) => this.#waiting.set(id, { size: bytes.length, resolve }));
    // Only a buffer that is all of its memory can be handed over; a view of shared memory is copied.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !isShared(bytes);
    const handed = own ? bytes : Buffer.from(bytes);
    const worker = (this.#worker ??= this.#spawn());
    worker.postMessage({ id, bytes: handed } satisfies BodyCheck, [handed.buffer as ArrayBuffer]);
    // Referenced only while it has work: an idle thread must not keep the process alive.
    if (this.#waiting.size === 1) worker.ref();
    return verdict;
  }

  #spawn(): Worker {
    const worker = new Worker(new URL('./request-json-worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: CHECK_THREAD_HEAP_MB },
    });
    worker.on('message', ({ id, fault, bytes }: BodyVerdict) =>
      this.#answer(id, { fault, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) }),
    );
    // A thread that failed (out of heap on a body) fails the bodies it held; the next body starts another.
    const fail = (): void => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      for (const id of [...this.#waiting.keys()]) {
        this.#answer(id, { fault: 'the request could not be read', bytes: Buffer.alloc(0) });
      }
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    return worker;
  }

  #answer(id: number, verdict: CheckedBody): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    this.#waitingBytes -= waiting.size;
    if (this.#waiting.size === 0) this.#worker?.unref();
    waiting.resolve(verdict);
  }
}

function isShared(bytes: Buffer): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && bytes.buffer instanceof SharedArrayBuffer;
}

const checkThread = new CheckThread();

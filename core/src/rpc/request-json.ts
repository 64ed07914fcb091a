import { Worker } from 'node:worker_threads';
import { inClientTurn } from './client-turns.js';
import { limitFault } from './request-json-limits.js';

export { MAX_JSON_VALUES, MAX_NESTING_DEPTH } from './request-json-limits.js';

/**
 * Bodies up to this length are parsed and checked on the node's thread at once: a few
 * milliseconds at most. A longer one is checked on a thread of its own first, so that a body built
 * to be slow to parse never holds the node's thread; only one within the limits is parsed here.
 */
const CHECKED_HERE_CHARS = 256 * 1024;
/** The checking thread parses one body at a time: the largest, of tiny values, takes ~150 MB of heap. */
const CHECK_THREAD_HEAP_MB = 512;
/**
 * Long bodies waiting for the checking thread, in characters, at most: each is held until its
 * turn, so a flood of them would otherwise hold gigabytes. Past it, a long body is refused at once.
 */
const MAX_WAITING_CHARS = 64 * 1024 * 1024;

/** A long body refused because too many wait to be read: a refusal that a retry can cure. */
export class RequestJsonBusyError extends Error {
  constructor() {
    super('server busy: too many large requests waiting to be read');
  }
}

/** A body the checking thread is asked about. */
export interface BodyCheck {
  readonly id: number;
  readonly text: string;
}

/** Its answer: why the body is refused, or undefined. */
export interface BodyVerdict {
  readonly id: number;
  readonly fault: string | undefined;
}

/** A short body's JSON value; throws as `JSON.parse` does, or a SyntaxError past the limits. */
function parseChecked(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const fault = limitFault(value);
  if (fault !== undefined) throw new SyntaxError(fault);
  return value;
}

/**
 * A request's JSON value, as `JSON.parse` gives it; a SyntaxError, as `JSON.parse` throws, when the
 * text is not JSON or exceeds the limits (`MAX_NESTING_DEPTH`, `MAX_JSON_VALUES`); a
 * {@link RequestJsonBusyError} when a long text finds too many others waiting.
 */
export async function parseRequestJson(text: string): Promise<unknown> {
  if (text.length <= CHECKED_HERE_CHARS) return parseChecked(text);
  const fault = await checkThread.check(text);
  if (fault !== undefined) throw new SyntaxError(fault);
  return JSON.parse(text);
}

/**
 * Reads a request body in `client`'s turn of the node's thread (`ClientTurns`) and hands its JSON
 * value and text to `serve` in that same turn, or what {@link parseRequestJson} would reject with
 * to `refuse`. A short body waits for its turn as bytes, outside the JS heap (a hundred waiting
 * bodies as strings tripled the time spent collecting garbage); a long one is checked on the
 * checking thread before it waits. Invalid UTF-8 becomes U+FFFD, as in geth's decoder.
 */
export function readRequestJsonInTurn(
  bytes: Buffer,
  client: string,
  serve: (body: unknown, text: string) => void,
  refuse: (error: unknown) => void,
): void {
  const read = (text: string, parse: (text: string) => unknown): void => {
    let body: unknown;
    try {
      body = parse(text);
    } catch (error) {
      refuse(error);
      return;
    }
    serve(body, text);
  };
  // A UTF-8 body has at least as many bytes as its text has characters.
  if (bytes.length <= CHECKED_HERE_CHARS) {
    inClientTurn(client, () => read(bytes.toString('utf8'), parseChecked));
    return;
  }
  const text = bytes.toString('utf8');
  checkThread.check(text).then((fault) => {
    if (fault === undefined) inClientTurn(client, () => read(text, JSON.parse));
    else refuse(new SyntaxError(fault));
  }, refuse);
}

/** The checking thread, started with the first long body; it holds no work between bodies. */
class CheckThread {
  #worker: Worker | undefined;
  readonly #waiting = new Map<number, { readonly chars: number; resolve(fault: string | undefined): void }>();
  #waitingChars = 0;
  #nextId = 0;

  async check(text: string): Promise<string | undefined> {
    if (this.#waitingChars + text.length > MAX_WAITING_CHARS) throw new RequestJsonBusyError();
    const id = this.#nextId++;
    this.#waitingChars += text.length;
    const verdict = new Promise<string | undefined>((resolve) =>
      this.#waiting.set(id, { chars: text.length, resolve }),
    );
    const worker = (this.#worker ??= this.#spawn());
    worker.postMessage({ id, text } satisfies BodyCheck);
    // Referenced only while it has work: an idle thread must not keep the process alive.
    if (this.#waiting.size === 1) worker.ref();
    return verdict;
  }

  #spawn(): Worker {
    const worker = new Worker(new URL('./request-json-worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: CHECK_THREAD_HEAP_MB },
    });
    worker.on('message', ({ id, fault }: BodyVerdict) => this.#answer(id, fault));
    // A thread that failed (out of heap on a body) fails the bodies it held; the next body starts another.
    const fail = (): void => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      for (const id of [...this.#waiting.keys()]) this.#answer(id, 'the request could not be read');
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    return worker;
  }

  #answer(id: number, fault: string | undefined): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    this.#waitingChars -= waiting.chars;
    if (this.#waiting.size === 0) this.#worker?.unref();
    waiting.resolve(fault);
  }
}

const checkThread = new CheckThread();

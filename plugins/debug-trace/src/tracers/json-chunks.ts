import type { ResultRoom } from './tracer.js';

/** Elements kept as values until this many, then made JSON together: one string and one Buffer per chunk, not per step. */
const ELEMENTS_PER_CHUNK = 256;
/**
 * ...or until they weigh about this much as JSON: 256 steps that each carry a megabyte of memory
 * would be made JSON in one turn of hundreds of milliseconds.
 */
const BYTES_PER_CHUNK = 1024 * 1024;

const COMMA = Buffer.from(',');
const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');

/**
 * Elements of a JSON array appended one by one and kept as UTF-8 bytes outside the JS heap, in
 * chunks that take room for their bytes from the trace's {@link ResultRoom} as they are sealed:
 * tens of megabytes of struct logs, held as objects, took a node's heap to its limit with two
 * traces.
 */
export class JsonChunks {
  readonly #sealed: Buffer[] = [];
  #open: unknown[] = [];
  /** About what the open elements weigh as JSON, as their appenders said. */
  #openBytes = 0;

  constructor(private readonly room: ResultRoom) {}

  /** Appends `element`, of about `bytes` as JSON; false when sealing found no room. */
  append(element: unknown, bytes = 0): boolean {
    this.#open.push(element);
    this.#openBytes += bytes;
    return !this.#full() || this.seal();
  }

  /** Moves everything `tail` holds to the end of this one, leaving it empty. */
  appendAll(tail: JsonChunks): boolean {
    if (tail.#sealed.length > 0) {
      if (!this.seal()) return false;
      this.#sealed.push(...tail.#sealed.splice(0));
    }
    if (tail.#open.length === 0) return true;
    this.#open.push(...tail.#open);
    this.#openBytes += tail.#openBytes;
    tail.#open = [];
    tail.#openBytes = 0;
    return !this.#full() || this.seal();
  }

  #full(): boolean {
    return this.#open.length >= ELEMENTS_PER_CHUNK || this.#openBytes >= BYTES_PER_CHUNK;
  }

  /** Makes the elements appended since the last seal JSON bytes; false when the room refuses them. */
  seal(): boolean {
    if (this.#open.length === 0) return true;
    // The elements' array without its brackets, after a comma (a string joined to it would be copied whole).
    const bytes = Buffer.from(JSON.stringify(this.#open).slice(1, -1), 'utf8');
    this.#open = [];
    this.#openBytes = 0;
    if (!this.room.take(bytes.length + 1)) return false;
    this.#sealed.push(COMMA, bytes);
    return true;
  }

  /** The JSON array of the elements sealed so far, in pieces: all of them after a {@link seal} that found room. */
  array(): Buffer[] {
    // Without the comma before the first element.
    return [OPEN, ...this.#sealed.slice(1), CLOSE];
  }
}

import type { ResultRoom } from './tracer.js';

/** Elements kept as values until this many, then made JSON together: one string and one Buffer per chunk, not per step. */
const ELEMENTS_PER_CHUNK = 256;

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

  constructor(private readonly room: ResultRoom) {}

  /** Appends `element`; false when sealing found no room. */
  append(element: unknown): boolean {
    this.#open.push(element);
    return this.#open.length < ELEMENTS_PER_CHUNK || this.seal();
  }

  /** Moves everything `tail` holds to the end of this one, leaving it empty. */
  appendAll(tail: JsonChunks): boolean {
    if (tail.#sealed.length > 0) {
      if (!this.seal()) return false;
      this.#sealed.push(...tail.#sealed.splice(0));
    }
    if (tail.#open.length === 0) return true;
    this.#open.push(...tail.#open);
    tail.#open = [];
    return this.#open.length < ELEMENTS_PER_CHUNK || this.seal();
  }

  /** Makes the elements appended since the last seal JSON bytes; false when the room refuses them. */
  seal(): boolean {
    if (this.#open.length === 0) return true;
    // The elements' array without its brackets, after a comma (a string joined to it would be copied whole).
    const bytes = Buffer.from(JSON.stringify(this.#open).slice(1, -1), 'utf8');
    this.#open = [];
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

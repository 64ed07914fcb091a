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

/** `elements` as JSON, without the array's brackets: one string for them all, then its bytes. */
function jsonOfElements(elements: readonly unknown[]): Buffer {
  // Sliced: a string joined to the brackets' would be copied whole.
  return Buffer.from(JSON.stringify(elements).slice(1, -1), 'utf8');
}

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

  /**
   * Appends `element`, of about `bytes` as JSON; false when sealing found no room. A Buffer is
   * taken as the element's JSON, already written.
   */
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
    const open = this.#open;
    this.#open = [];
    this.#openBytes = 0;
    let from = 0;
    for (let index = 0; index <= open.length; index++) {
      const element = open[index];
      if (index < open.length && !(element instanceof Buffer)) continue;
      if (index > from && !this.#push(jsonOfElements(open.slice(from, index)))) return false;
      if (element instanceof Buffer && !this.#push(element)) return false;
      from = index + 1;
    }
    return true;
  }

  /** Adds `bytes`, one element or several, after a comma; false when the room refuses them. */
  #push(bytes: Buffer): boolean {
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

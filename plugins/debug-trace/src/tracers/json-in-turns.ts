import { EventLoopTurns, RawJson } from '@evmnode/core';

/**
 * The most a single transaction's trace may weigh as JSON: a loop of calls with a kilobyte of
 * input each makes a callTracer answer of 170 MB from one 12.5M-gas transaction, and a loop of
 * steps with memory gigabytes of struct logs.
 */
export const MAX_TRANSACTION_TRACE_BYTES = 32 * 1024 * 1024;

/** What a value made JSON may weigh, and the error past it. */
export interface JsonBound {
  readonly maxBytes: number;
  tooLarge(): Error;
}

/** Text gathered before it becomes one piece of the answer. */
const PIECE_CHARS = 64 * 1024;
/** Values written between two looks at the clock. */
const VALUES_PER_LOOK = 256;

/** An array still being written: its elements come from an iterator, so a generator writes one made as it goes. */
interface OpenArray {
  readonly items: Iterator<unknown>;
  first: boolean;
}

type Work = string | OpenArray | { readonly value: unknown };

/**
 * `value` as JSON, written in turns of the event loop and refused past `bound`: a trace's
 * tree of tens of thousands of frames is never built, nor serialised, in one turn. Writes what
 * `JSON.stringify` writes for plain objects, arrays, strings, numbers, booleans and null, plus:
 * a Uint8Array as `0x` hex, a {@link RawJson} as it is, and any other iterable (a generator) as an
 * array of what it yields.
 */
export async function jsonInTurns(value: unknown, bound: JsonBound): Promise<RawJson> {
  const output = new BoundedOutput(bound);
  const turns = new EventLoopTurns();
  const work: Work[] = [{ value }];
  let sinceLook = 0;
  while (work.length > 0) {
    if (++sinceLook === VALUES_PER_LOOK) {
      sinceLook = 0;
      const pause = turns.pause();
      if (pause !== undefined) await pause;
    }
    const next = work.pop()!;
    if (typeof next === 'string') {
      output.text(next);
    } else if ('items' in next) {
      const item = next.items.next();
      if (item.done === true) {
        output.text(']');
        continue;
      }
      if (!next.first) output.text(',');
      next.first = false;
      work.push(next, { value: item.value ?? null });
    } else {
      writeValue(next.value, output, work);
    }
  }
  return output.end();
}

/** Writes a scalar at once, or opens an array or object whose members go on `work`. */
function writeValue(value: unknown, output: BoundedOutput, work: Work[]): void {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') throw new TypeError('a bigint has no JSON form');
    output.text(JSON.stringify(value) ?? 'null');
  } else if (value instanceof Uint8Array) {
    output.text(`"0x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}"`);
  } else if (value instanceof RawJson) {
    output.parts(value.parts);
  } else if (Symbol.iterator in value) {
    output.text('[');
    work.push({ items: (value as Iterable<unknown>)[Symbol.iterator](), first: true });
  } else {
    output.text('{');
    work.push('}');
    const entries = Object.entries(value as Record<string, unknown>).filter(
      ([, member]) => member !== undefined && typeof member !== 'function',
    );
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, member] = entries[index]!;
      work.push({ value: member }, `${index === 0 ? '' : ','}${JSON.stringify(key)}:`);
    }
  }
}

/** The answer's pieces, counted as they are made. */
class BoundedOutput {
  readonly #pieces: Uint8Array[] = [];
  #text = '';
  #bytes = 0;

  constructor(private readonly bound: JsonBound) {}

  text(text: string): void {
    this.#text += text;
    if (this.#text.length >= PIECE_CHARS) this.#flush();
  }

  parts(parts: readonly Uint8Array[]): void {
    this.#flush();
    for (const part of parts) this.#add(part);
  }

  end(): RawJson {
    this.#flush();
    return new RawJson(this.#pieces);
  }

  #flush(): void {
    if (this.#text.length === 0) return;
    this.#add(Buffer.from(this.#text, 'utf8'));
    this.#text = '';
  }

  #add(piece: Uint8Array): void {
    this.#bytes += piece.length;
    if (this.#bytes > this.bound.maxBytes) throw this.bound.tooLarge();
    this.#pieces.push(piece);
  }
}

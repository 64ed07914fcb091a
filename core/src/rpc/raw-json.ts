/**
 * A result that is already JSON, as UTF-8 bytes, served as it is: log queries build their answer
 * from stored JSON instead of parsing it into objects only to serialise them again. The bytes may
 * come in pieces (a trace's struct logs, a block's traces), joined only when the answer is made:
 * each join of a 128 MiB trace is 128 MiB more held at once.
 */
export class RawJson {
  readonly #parts: readonly Uint8Array[];
  #bytes: Buffer | undefined;
  /** The number of bytes. */
  readonly length: number;

  constructor(bytes: Buffer | readonly Uint8Array[]) {
    if (Buffer.isBuffer(bytes)) {
      this.#bytes = bytes;
      this.#parts = [bytes];
    } else {
      this.#parts = bytes;
    }
    this.length = lengthOf(this.#parts);
  }

  /** The JSON array of `elements`, each already JSON (text, or UTF-8 bytes). */
  static array(elements: readonly (string | Uint8Array)[]): RawJson {
    const parts: Uint8Array[] = [OPEN];
    elements.forEach((element, index) => {
      if (index > 0) parts.push(COMMA);
      parts.push(typeof element === 'string' ? Buffer.from(element, 'utf8') : element);
    });
    parts.push(CLOSE);
    return new RawJson(parts);
  }

  /** The bytes in pieces, in order. */
  get parts(): readonly Uint8Array[] {
    return this.#parts;
  }

  /** The bytes in one piece, joined on first use. */
  get bytes(): Buffer {
    return (this.#bytes ??= Buffer.concat(this.#parts, this.length));
  }

  /** For callers that serialise it inside another value. */
  toJSON(): unknown {
    return JSON.parse(this.bytes.toString('utf8'));
  }
}

/** The bytes of `parts` together. */
export function lengthOf(parts: readonly Uint8Array[]): number {
  let total = 0;
  for (const part of parts) total += part.length;
  return total;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

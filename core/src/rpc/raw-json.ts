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

/** The most bytes of a piece {@link ArrayPacker} fills before it starts the next. */
const PACKED_PIECE_BYTES = 1024 * 1024;

/** The bytes of its first piece: a small array takes no more. */
const FIRST_PIECE_BYTES = 16 * 1024;

/**
 * Copies a JSON array's elements (each already JSON), with its brackets and commas, into pieces of
 * at most {@link PACKED_PIECE_BYTES}, each as large as all before it (from
 * {@link FIRST_PIECE_BYTES}): what the pieces leave unused is at most about as much as the array
 * holds, and an answer of half a million elements is a few hundred pieces, not a million.
 */
export class JsonArrayPacker {
  readonly #pieces: Buffer[] = [];
  #piece = Buffer.alloc(0);
  #used = 0;
  /** The bytes of the pieces allocated so far. */
  #allocated = 0;
  #count = 0;

  /** The elements appended. */
  get count(): number {
    return this.#count;
  }

  append(element: Uint8Array): void {
    this.#write(this.#count++ === 0 ? OPEN_BYTE : COMMA_BYTE);
    if (element.length > PACKED_PIECE_BYTES) {
      // Larger than a piece: it goes as it is, between the pieces before and after it.
      this.#seal();
      this.#pieces.push(Buffer.from(element.buffer, element.byteOffset, element.length));
      return;
    }
    this.#makeRoom(element.length);
    this.#piece.set(element, this.#used);
    this.#used += element.length;
  }

  /** The array, closed. */
  end(): RawJson {
    if (this.#count === 0) this.#write(OPEN_BYTE);
    this.#write(CLOSE_BYTE);
    this.#seal();
    return new RawJson(this.#pieces);
  }

  #write(byte: number): void {
    this.#makeRoom(1);
    this.#piece[this.#used++] = byte;
  }

  #makeRoom(bytes: number): void {
    if (this.#used + bytes <= this.#piece.length) return;
    this.#seal();
    const size = Math.max(bytes, Math.min(PACKED_PIECE_BYTES, Math.max(FIRST_PIECE_BYTES, this.#allocated)));
    this.#piece = Buffer.allocUnsafe(size);
    this.#allocated += size;
  }

  #seal(): void {
    if (this.#used === 0) return;
    this.#pieces.push(this.#piece.subarray(0, this.#used));
    this.#piece = Buffer.alloc(0);
    this.#used = 0;
  }
}

const OPEN_BYTE = 0x5b;
const COMMA_BYTE = 0x2c;
const CLOSE_BYTE = 0x5d;

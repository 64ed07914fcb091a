import type { WriteBatch } from './kv-store.js';

/**
 * One large write split into batches of about `pieceBytes`, each written once full, one after
 * another, without sync; the last is the caller's to finish and write ({@link last}). The
 * `rocksdb` binding grows a batch by reallocating one buffer, with no way to reserve it, and
 * memory touched for the first time is slow here (about 3 ms a megabyte): single puts into a
 * 60M-gas block's batch held the node's thread for up to 185 ms. Pieces are not atomic together:
 * only entries that nothing reads until the last batch makes them reachable belong in those
 * before it.
 */
export class BatchPieces {
  /** The piece being filled; none until an entry comes. */
  #piece: WriteBatch | undefined;
  #bytes = 0;
  #written: Promise<void> = Promise.resolve();

  constructor(
    private readonly newBatch: () => WriteBatch,
    private readonly pieceBytes: number,
  ) {}

  put(key: Uint8Array, value: Uint8Array): this {
    this.#piece ??= this.newBatch();
    this.#piece.put(key, value);
    this.#bytes += key.length + value.length;
    if (this.#bytes >= this.pieceBytes) this.#writePiece(this.#piece);
    return this;
  }

  /**
   * The batch to write last, once {@link written}: the piece being filled (a small write is one
   * batch), or a new one. Nothing more is put here.
   */
  last(): WriteBatch {
    const last = this.#piece ?? this.newBatch();
    this.#piece = undefined;
    return last;
  }

  /** Resolves once every piece before the last is written, or rejects with the first failure. */
  written(): Promise<void> {
    return this.#written;
  }

  #writePiece(piece: WriteBatch): void {
    this.#piece = undefined;
    this.#bytes = 0;
    this.#written = this.#written.then(() => piece.write());
    // Seen by `written`'s caller; until then a failure must not count as unhandled.
    this.#written.catch(() => undefined);
  }
}

/** A key range for iteration; bounds are compared bytewise. */
export interface KeyRange {
  readonly gte?: Uint8Array;
  readonly gt?: Uint8Array;
  readonly lte?: Uint8Array;
  readonly lt?: Uint8Array;
  readonly reverse?: boolean;
  readonly limit?: number;
}

/** How a batch is written. */
export interface WriteOptions {
  /**
   * Resolve only once the write-ahead log holding the batch is on disk, so that the batch
   * survives a power cut or an operating system crash, not only the process's death.
   */
  readonly sync?: boolean;
}

/** Puts and deletes applied together, or not at all. */
export interface WriteBatch {
  put(key: Uint8Array, value: Uint8Array): this;
  del(key: Uint8Array): this;
  /** Operations queued so far. */
  readonly length: number;
  /** Applies every operation atomically; the batch cannot be reused afterwards. */
  write(options?: WriteOptions): Promise<void>;
}

/** The narrow key-value interface every repository is written against. */
export interface KvStore {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** The values of `keys`, in their order, in one read. */
  getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]>;
  put(key: Uint8Array, value: Uint8Array): Promise<void>;
  del(key: Uint8Array): Promise<void>;
  batch(): WriteBatch;
  /** Entries in key order (or reverse), within `range`. */
  iterate(range?: KeyRange): AsyncIterable<readonly [Uint8Array, Uint8Array]>;
  close(): Promise<void>;
}

/** Bytewise comparison, the order RocksDB keeps keys in. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** Whether `key` lies within `range`'s bounds. */
export function inRange(key: Uint8Array, range: KeyRange): boolean {
  if (range.gte !== undefined && compareBytes(key, range.gte) < 0) return false;
  if (range.gt !== undefined && compareBytes(key, range.gt) <= 0) return false;
  if (range.lte !== undefined && compareBytes(key, range.lte) > 0) return false;
  if (range.lt !== undefined && compareBytes(key, range.lt) >= 0) return false;
  return true;
}

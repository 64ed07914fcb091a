import { compareBytes, inRange, type KeyRange, type KvStore, type WriteBatch } from './kv-store.js';

type Operation =
  | { readonly type: 'put'; readonly key: Uint8Array; readonly value: Uint8Array }
  | { readonly type: 'del'; readonly key: Uint8Array };

/** An in-memory {@link KvStore} for unit tests; same ordering and batch semantics as RocksDB. */
export class MemoryStore implements KvStore {
  readonly #entries = new Map<string, readonly [Uint8Array, Uint8Array]>();
  #closed = false;

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.#assertOpen();
    return Promise.resolve(this.#entries.get(hexOf(key))?.[1]);
  }

  getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    this.#assertOpen();
    return Promise.resolve(keys.map((key) => this.#entries.get(hexOf(key))?.[1]));
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.batch().put(key, value).write();
  }

  del(key: Uint8Array): Promise<void> {
    return this.batch().del(key).write();
  }

  batch(): WriteBatch {
    return new MemoryBatch((operations) => {
      this.#assertOpen();
      for (const operation of operations) {
        if (operation.type === 'put') this.#entries.set(hexOf(operation.key), [operation.key, operation.value]);
        else this.#entries.delete(hexOf(operation.key));
      }
    });
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the interface is asynchronous; memory never waits.
  async *iterate(range: KeyRange = {}): AsyncIterable<readonly [Uint8Array, Uint8Array]> {
    this.#assertOpen();
    const selected = [...this.#entries.values()].filter(([key]) => inRange(key, range));
    selected.sort(([a], [b]) => compareBytes(a, b));
    if (range.reverse === true) selected.reverse();
    const limit = range.limit ?? Number.POSITIVE_INFINITY;
    yield* selected.slice(0, limit < 0 ? undefined : limit);
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('the database is closed');
  }
}

function hexOf(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex');
}

class MemoryBatch implements WriteBatch {
  readonly #operations: Operation[] = [];

  constructor(private readonly apply: (operations: readonly Operation[]) => void) {}

  put(key: Uint8Array, value: Uint8Array): this {
    this.#operations.push({ type: 'put', key: Uint8Array.from(key), value: Uint8Array.from(value) });
    return this;
  }

  del(key: Uint8Array): this {
    this.#operations.push({ type: 'del', key: Uint8Array.from(key) });
    return this;
  }

  get length(): number {
    return this.#operations.length;
  }

  write(): Promise<void> {
    this.apply(this.#operations);
    return Promise.resolve();
  }
}

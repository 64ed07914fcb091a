import type { BatchDBOp, DB } from '@ethereumjs/util';
import { Bucket, bucketKey } from '../../storage/buckets.js';
import type { KvStore, WriteBatch } from '../../storage/kv-store.js';

type Key = string | Uint8Array;
type Value = string | Uint8Array;

function keyBytes(key: Key): Uint8Array {
  return typeof key === 'string' ? Buffer.from(key, 'hex') : key;
}

function valueBytes(value: Value): Uint8Array {
  return typeof value === 'string' ? Buffer.from(value, 'hex') : value;
}

/**
 * The state trie's node store on the node's database. Writes made while a block executes stay in
 * memory (and are read back from there) until {@link moveInto} puts them into that block's write
 * batch, so that state changes commit atomically with the block. Nodes are never deleted: every
 * historical state root stays readable (an archive).
 */
export class TrieNodeStore implements DB<Key, Value> {
  readonly #pending = new Map<string, Uint8Array | undefined>();

  constructor(private readonly store: KvStore) {}

  async get(key: Key): Promise<Value | undefined> {
    const bytes = keyBytes(key);
    const hex = Buffer.from(bytes).toString('hex');
    if (this.#pending.has(hex)) return this.#pending.get(hex);
    return this.store.get(bucketKey(Bucket.StateNode, bytes));
  }

  put(key: Key, value: Value): Promise<void> {
    this.#pending.set(Buffer.from(keyBytes(key)).toString('hex'), valueBytes(value));
    return Promise.resolve();
  }

  del(key: Key): Promise<void> {
    this.#pending.set(Buffer.from(keyBytes(key)).toString('hex'), undefined);
    return Promise.resolve();
  }

  async batch(operations: BatchDBOp<Key, Value>[]): Promise<void> {
    for (const operation of operations) {
      if (operation.type === 'put') await this.put(operation.key, operation.value);
      else await this.del(operation.key);
    }
  }

  shallowCopy(): DB<Key, Value> {
    return this;
  }

  open(): Promise<void> {
    return Promise.resolve();
  }

  /** Moves every pending write into `batch`; they are readable from the store once it is written. */
  moveInto(batch: WriteBatch): void {
    for (const [hex, value] of this.#pending) {
      const key = bucketKey(Bucket.StateNode, Buffer.from(hex, 'hex'));
      if (value === undefined) batch.del(key);
      else batch.put(key, value);
    }
  }

  /** Forgets pending writes once their batch is written (or abandoned). */
  clearPending(): void {
    this.#pending.clear();
  }
}

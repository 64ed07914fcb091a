import type { BatchDBOp, DB } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
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
 * Blocks whose written nodes stay readable from memory. The trie's own cache is filled by reads
 * but not by batch writes, so without this every block would read back from the database the
 * nodes the previous ones wrote (~2,000 reads for a block of transfers).
 */
const RECENT_BLOCKS = 4;

/**
 * Nodes read from the database that stay in memory. Nodes are addressed by their hash, so a
 * cached one never goes stale; each is ~100-500 bytes, so this holds a few tens of MB at most.
 * Simulated calls and reads at the head walk the same upper levels of the trie again and again.
 */
const READ_CACHE_NODES = 100_000;

/**
 * The state trie's node store on the node's database. Writes made while a block executes stay in
 * memory (and are read back from there) until {@link moveInto} puts them into that block's write
 * batch, so that state changes commit atomically with the block. Nodes are only deleted by
 * pruning: every state root kept stays readable.
 */
export class TrieNodeStore implements DB<Key, Value> {
  #pending = new Map<string, Uint8Array | undefined>();
  /** Nodes the last blocks wrote, newest last. */
  readonly #recent: Map<string, Uint8Array | undefined>[] = [];
  readonly #read = new LRUCache<string, Uint8Array>({ max: READ_CACHE_NODES });

  constructor(private readonly store: KvStore) {}

  async get(key: Key): Promise<Value | undefined> {
    const bytes = keyBytes(key);
    const hex = Buffer.from(bytes).toString('hex');
    if (this.#pending.has(hex)) return this.#pending.get(hex);
    for (let index = this.#recent.length - 1; index >= 0; index--) {
      const recent = this.#recent[index]!;
      if (recent.has(hex)) return recent.get(hex);
    }
    const cached = this.#read.get(hex);
    if (cached !== undefined) return cached;
    const stored = await this.store.get(bucketKey(Bucket.StateNode, bytes));
    if (stored !== undefined) this.#read.set(hex, stored);
    return stored;
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

  /** Called once the batch holding the pending writes is written: they become recent writes. */
  committed(): void {
    this.#recent.push(this.#pending);
    if (this.#recent.length > RECENT_BLOCKS) this.#recent.shift();
    this.#pending = new Map();
  }

  /** Forgets pending writes whose batch was abandoned. */
  discardPending(): void {
    this.#pending.clear();
  }

  /** Forgets recent writes and reads, when pruning may have deleted some of them. */
  forgetRecent(): void {
    this.#recent.length = 0;
    this.#read.clear();
  }
}

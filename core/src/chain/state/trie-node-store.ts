import type { BatchDBOp, DB } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import { Bucket, bucketKey } from '../../storage/buckets.js';
import { CoalescedReads } from '../../storage/coalesced-reads.js';
import type { KvStore } from '../../storage/kv-store.js';

type Key = string | Uint8Array;
type Value = string | Uint8Array;

function keyBytes(key: Key): Uint8Array {
  return typeof key === 'string' ? Buffer.from(key, 'hex') : key;
}

function valueBytes(value: Value): Uint8Array {
  return typeof value === 'string' ? Buffer.from(value, 'hex') : value;
}

/**
 * Bytes of nodes (and code) kept in memory, keys included: those the last blocks stored and those
 * read from the database, about 12,000 trie nodes (a full block of transfers stores 1,140). Nodes
 * are addressed by their hash, so a cached one never goes stale. The trie's own cache is filled
 * by reads but not by batch writes, so without the stored ones every block would read back from
 * the database, one at a time, nodes the blocks before it wrote; and simulated calls and reads at
 * the head walk the same upper levels of the trie again and again. A larger cache costs far more
 * than its bytes: with 16 MB, the node's peak RSS over 100,000 transfers (`bench:chain -- --soak`)
 * went from about 420 to 500 MB.
 */
const CACHED_BYTES = 4 * 1024 * 1024;

/** The state writes of one block, node hash (hex) to node; undefined for a deletion. */
export type NodeWrites = Map<string, Uint8Array | undefined>;

/**
 * The state trie's node store on the node's database. Writes made while a block executes stay in
 * memory (and are read back from there) until {@link moveInto} puts them into that block's write
 * batch, so that state changes commit atomically with the block. They stay readable while that
 * batch is written, as the next block may execute meanwhile (a follower catching up). Nodes are
 * only deleted by pruning: every state root kept stays readable.
 */
export class TrieNodeStore implements DB<Key, Value> {
  #pending: NodeWrites = new Map();
  /** Writes moved into batches not yet written, oldest first. */
  readonly #writing: NodeWrites[] = [];
  readonly #cached = new LRUCache<string, Uint8Array>({
    maxSize: CACHED_BYTES,
    sizeCalculation: (value, hex) => value.length + hex.length,
  });

  /** Misses are read together: a block's prefetch walks hundreds of paths at once. */
  readonly #reads: CoalescedReads;

  constructor(store: KvStore) {
    this.#reads = new CoalescedReads(store);
  }

  get(key: Key): Promise<Value | undefined> {
    return this.#get(key, true);
  }

  /**
   * These nodes as block replays (traces, trace baking) read them: from the cache without
   * refreshing it, and what the database gives stays out of it. A replay walks an older block's
   * state, thousands of nodes the head no longer uses; cached, they evicted the nodes a block under
   * way then read back from the database while admissions took the thread (docs/performance.md).
   * A replay keeps what it reads in its own trie's cache.
   */
  replayView(): DB<Key, Value> {
    const view: DB<Key, Value> = {
      get: (key) => this.#get(key, false),
      put: (key, value) => this.put(key, value),
      del: (key) => this.del(key),
      batch: (operations) => this.batch(operations),
      shallowCopy: () => view,
      open: () => this.open(),
    };
    return view;
  }

  async #get(key: Key, cache: boolean): Promise<Value | undefined> {
    const bytes = keyBytes(key);
    const hex = Buffer.from(bytes).toString('hex');
    if (this.#pending.has(hex)) return this.#pending.get(hex);
    for (let index = this.#writing.length - 1; index >= 0; index--)
      if (this.#writing[index]!.has(hex)) return this.#writing[index]!.get(hex);
    const cached = cache ? this.#cached.get(hex) : this.#cached.peek(hex);
    if (cached !== undefined) return cached;
    const stored = await this.#reads.get(bucketKey(Bucket.StateNode, bytes));
    if (cache && stored !== undefined) this.#cached.set(hex, stored);
    return stored;
  }

  put(key: Key, value: Value): Promise<void> {
    const hex = Buffer.from(keyBytes(key)).toString('hex');
    // ethereumjs' checkpoint database writes back, at its last commit, every node it read from
    // here during the checkpoint: one known to be stored, or in a batch being written (a block
    // is never committed after a block before it failed), is not stored again.
    if ((this.#cached.has(hex) || this.#isBeingWritten(hex)) && !this.#pending.has(hex)) return Promise.resolve();
    this.#pending.set(hex, valueBytes(value));
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

  #isBeingWritten(hex: string): boolean {
    return this.#writing.some((writes) => writes.get(hex) !== undefined);
  }

  /**
   * Moves the pending writes into a block's batches: nodes stored into `puts`, nodes deleted into
   * `deletions` (for the batch that moves the head: the head before it may still need them). They
   * are readable from here while written, and from the store once they are. The caller then
   * reports the outcome: {@link written} or {@link notWritten}, with what this returns. A block's
   * state writes each trie in one batch (`updateTrie`), so every node it made belongs to its state.
   */
  moveInto(
    puts: { put(key: Uint8Array, value: Uint8Array): unknown },
    deletions: { del(key: Uint8Array): unknown },
  ): NodeWrites {
    const writes = this.#pending;
    for (const [hex, value] of writes) {
      const key = bucketKey(Bucket.StateNode, Buffer.from(hex, 'hex'));
      if (value === undefined) deletions.del(key);
      else puts.put(key, value);
    }
    this.#pending = new Map();
    this.#writing.push(writes);
    return writes;
  }

  /** The batch holding `writes` is written: they are cached as stored. */
  written(writes: NodeWrites): void {
    this.#stopWriting(writes);
    for (const [hex, value] of writes) {
      if (value === undefined) this.#cached.delete(hex);
      else this.#cached.set(hex, value);
    }
  }

  /** The batch holding `writes` failed: they are forgotten. */
  notWritten(writes: NodeWrites): void {
    this.#stopWriting(writes);
  }

  #stopWriting(writes: NodeWrites): void {
    const index = this.#writing.indexOf(writes);
    if (index >= 0) this.#writing.splice(index, 1);
  }

  /** Forgets pending writes whose batch was abandoned. */
  discardPending(): void {
    this.#pending.clear();
  }

  /** Forgets the cached nodes, when pruning may have deleted some of them. */
  forgetCached(): void {
    this.#cached.clear();
  }
}

import { RLP, type NestedUint8Array } from '@ethereumjs/rlp';
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

/** A trie node's key: its 32-byte hash, in hex. The store's other entries (code) have longer keys. */
const NODE_KEY_HEX = 64;

/**
 * The state trie's node store on the node's database. Writes made while a block executes stay in
 * memory (and are read back from there) until {@link moveInto} puts them into that block's write
 * batch, so that state changes commit atomically with the block. Nodes are only deleted by
 * pruning: every state root kept stays readable.
 */
export class TrieNodeStore implements DB<Key, Value> {
  #pending = new Map<string, Uint8Array | undefined>();
  readonly #cached = new LRUCache<string, Uint8Array>({
    maxSize: CACHED_BYTES,
    sizeCalculation: (value, hex) => value.length + hex.length,
  });

  constructor(private readonly store: KvStore) {}

  async get(key: Key): Promise<Value | undefined> {
    const bytes = keyBytes(key);
    const hex = Buffer.from(bytes).toString('hex');
    if (this.#pending.has(hex)) return this.#pending.get(hex);
    const cached = this.#cached.get(hex);
    if (cached !== undefined) return cached;
    const stored = await this.store.get(bucketKey(Bucket.StateNode, bytes));
    if (stored !== undefined) this.#cached.set(hex, stored);
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

  /**
   * Moves the pending writes that the state at `stateRoot` holds into `batch`; they are readable
   * from the store once it is written. The trie hashes and writes its path again at every account
   * and slot a block changes, so most nodes a block made belong to none of its states but a
   * passing one (about 60% in a block of transfers): those are dropped, not stored.
   */
  moveInto(batch: WriteBatch, stateRoot: Uint8Array): void {
    const live = this.#pendingReachableFrom(stateRoot);
    for (const [hex, value] of this.#pending) {
      if (value !== undefined && hex.length === NODE_KEY_HEX && !live.has(hex)) {
        this.#pending.delete(hex);
        continue;
      }
      const key = bucketKey(Bucket.StateNode, Buffer.from(hex, 'hex'));
      if (value === undefined) batch.del(key);
      else batch.put(key, value);
    }
  }

  /**
   * The pending trie nodes reachable from `root`, the storage tries of the accounts they hold
   * included. A node already stored holds only stored nodes below it, so the walk stops there.
   * Nodes are read as RLP lists, not as ethereumjs' node objects (whose keys it turns into
   * nibbles): only their references are wanted, a third of the time.
   */
  #pendingReachableFrom(root: Uint8Array): Set<string> {
    const reached = new Set<string>();
    const hashes = [Buffer.from(root).toString('hex')];
    // A reference is a node's hash, or a node under 32 bytes held in its parent, which is too
    // small to hold a hash itself: nothing below it is stored apart.
    const follow = (reference: Uint8Array | NestedUint8Array): void => {
      if (!Array.isArray(reference) && reference.length === 32) hashes.push(Buffer.from(reference).toString('hex'));
    };
    const visit = (node: NestedUint8Array): void => {
      // A branch: sixteen children and a value no state trie uses.
      if (node.length === 17) {
        for (let index = 0; index < 16; index++) follow(node[index]!);
        return;
      }
      // A leaf or an extension: the first nibble of its compact-encoded path tells which (0 or 1, an extension).
      const [path, value] = node as [Uint8Array, Uint8Array | NestedUint8Array];
      if (path[0]! >> 4 < 2) return follow(value);
      // An account's leaf (a list of four) names its storage trie; a slot's leaf holds bytes.
      const account = RLP.decode(value);
      if (Array.isArray(account) && account.length === 4) follow(account[2] as Uint8Array);
    };
    for (let hex = hashes.pop(); hex !== undefined; hex = hashes.pop()) {
      const bytes = this.#pending.get(hex);
      if (bytes === undefined || reached.has(hex)) continue;
      reached.add(hex);
      visit(RLP.decode(bytes) as NestedUint8Array);
    }
    return reached;
  }

  /** Called once the batch holding the pending writes is written: they are cached as stored. */
  committed(): void {
    for (const [hex, value] of this.#pending) {
      if (value === undefined) this.#cached.delete(hex);
      else this.#cached.set(hex, value);
    }
    this.#pending = new Map();
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

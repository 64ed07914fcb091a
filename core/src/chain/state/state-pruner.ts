import type { Common } from '@ethereumjs/common';
import { LeafMPTNode, MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes, KECCAK256_NULL, ValueEncoding, equalsBytes } from '@ethereumjs/util';
import type { TrieNodeStore } from './trie-node-store.js';
import { Bucket, bucketRange } from '../../storage/buckets.js';
import type { KvStore } from '../../storage/kv-store.js';
import type { ChainStore } from '../chain-store.js';

/** Where the state manager stores contract code: 'c' || code hash (its `prefixCodeHashes`). */
const CODE_PREFIX = 0x63;

/** Deletions per write batch while sweeping. */
const SWEEP_BATCH = 10_000;

export interface PruneResult {
  readonly kept: number;
  readonly deleted: number;
}

/**
 * Removes the state no longer served under `[state] keep_recent`: marks every trie node and code
 * entry reachable from the state roots of the kept blocks, then deletes every other one. It runs
 * between blocks, so no block writes nodes while it works.
 */
export class StatePruner {
  constructor(
    private readonly store: ChainStore,
    private readonly kv: KvStore,
    private readonly nodes: TrieNodeStore,
    private readonly common: Common,
  ) {}

  /** Keeps the state of heights `earliest` to `head`. */
  async prune(earliest: number, head: number): Promise<PruneResult> {
    const marked = new Set<string>();
    for (let height = earliest; height <= head; height++) {
      const block = await this.store.blockAt(height);
      if (block !== undefined) await this.#markState(hexToBytes(block.stateRoot), marked);
    }
    return this.#sweep(marked);
  }

  async #markState(root: Uint8Array, marked: Set<string>): Promise<void> {
    const storageRoots: Uint8Array[] = [];
    await this.#markTrie(root, marked, (node) => {
      if (!(node instanceof LeafMPTNode)) return Promise.resolve();
      const [, , storageRoot, codeHash] = RLP.decode(node.value()) as Uint8Array[];
      if (storageRoot !== undefined) storageRoots.push(storageRoot);
      if (codeHash !== undefined && !equalsBytes(codeHash, KECCAK256_NULL)) {
        marked.add(bytesToHex(Uint8Array.from([CODE_PREFIX, ...codeHash])));
      }
      return Promise.resolve();
    });
    for (const storageRoot of storageRoots) await this.#markTrie(storageRoot, marked);
  }

  /** Adds every node of the trie at `root` to `marked`; subtrees already marked are not walked again. */
  async #markTrie(root: Uint8Array, marked: Set<string>, onNode?: (node: unknown) => Promise<void>): Promise<void> {
    const trie = new MerklePatriciaTrie({
      db: this.nodes,
      useKeyHashing: true,
      valueEncoding: ValueEncoding.Bytes,
      common: this.common,
    });
    // The filter refuses every node, so the walk yields nothing: visiting is what marks them.
    const walk = trie.walkTrieIterable(root, [], onNode, () => Promise.resolve(false), marked);
    await walk[Symbol.asyncIterator]().next();
  }

  async #sweep(marked: ReadonlySet<string>): Promise<PruneResult> {
    let kept = 0;
    let deleted = 0;
    let batch = this.kv.batch();
    for await (const [key] of this.kv.iterate(bucketRange(Bucket.StateNode))) {
      if (marked.has(bytesToHex(key.subarray(1)))) {
        kept++;
        continue;
      }
      batch.del(key);
      deleted++;
      if (batch.length >= SWEEP_BATCH) {
        await batch.write();
        batch = this.kv.batch();
      }
    }
    if (batch.length > 0) await batch.write();
    return { kept, deleted };
  }
}

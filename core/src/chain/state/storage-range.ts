import type { Common } from '@ethereumjs/common';
import { BranchMPTNode, ExtensionMPTNode, LeafMPTNode, MerklePatriciaTrie, type MPTNode } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import {
  Address,
  equalsBytes,
  hexToBytes,
  setLengthLeft,
  ValueEncoding,
  type PrefixedHexString,
} from '@ethereumjs/util';
import type { TrieNodeStore } from './trie-node-store.js';
import { stateManagerAt } from './world-state.js';

/** One storage slot as its trie keeps it: keyed by keccak256(slot), which is also its order. */
export interface StorageSlot {
  /** keccak256 of the 32-byte slot: the trie's key (the slot itself is not kept). */
  readonly hashedKey: Uint8Array;
  /** The 32-byte value, left-padded. */
  readonly value: Uint8Array;
}

/** A page of an account's storage, and the hashed key the next page starts at, if any. */
export interface StorageRange {
  readonly slots: StorageSlot[];
  readonly next: Uint8Array | undefined;
}

const nibblesOf = (bytes: Uint8Array): number[] => [...bytes].flatMap((byte) => [byte >> 4, byte & 15]);
const bytesOf = (nibbles: readonly number[]): Uint8Array =>
  Uint8Array.from({ length: nibbles.length / 2 }, (_, index) => (nibbles[2 * index]! << 4) | nibbles[2 * index + 1]!);

/** -1, 0 or 1 as `path` sorts before, as a prefix of, or after the same-length start of `start`. */
function comparePrefix(path: readonly number[], start: readonly number[]): number {
  for (let index = 0; index < path.length; index++) {
    const difference = path[index]! - start[index]!;
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/**
 * Up to `limit` slots of a storage trie whose hashed key is at least `start`, in key order, and the
 * key after them. The walk descends only into subtrees that can hold such keys and stops at the
 * first key past the page: it reads the nodes of one page's paths, never the whole trie.
 */
export async function storageRange(trie: MerklePatriciaTrie, start: Uint8Array, limit: number): Promise<StorageRange> {
  const startNibbles = nibblesOf(setLengthLeft(start, 32));
  const slots: StorageSlot[] = [];
  let next: Uint8Array | undefined;

  const visit = async (node: MPTNode, path: number[]): Promise<void> => {
    if (next !== undefined) return;
    if (node instanceof LeafMPTNode) {
      const key = [...path, ...node.key()];
      if (comparePrefix(key, startNibbles) < 0) return;
      const hashedKey = bytesOf(key);
      if (slots.length === limit) next = hashedKey;
      else slots.push({ hashedKey, value: setLengthLeft(RLP.decode(node.value()) as Uint8Array, 32) });
      return;
    }
    if (node instanceof ExtensionMPTNode) {
      const extended = [...path, ...node.key()];
      if (comparePrefix(extended, startNibbles) >= 0) await visit(await trie.lookupNode(node.value()), extended);
      return;
    }
    if (node instanceof BranchMPTNode) {
      for (let nibble = 0; nibble < 16 && next === undefined; nibble++) {
        const child = node.getBranch(nibble);
        const childPath = [...path, nibble];
        if (child === null || comparePrefix(childPath, startNibbles) < 0) continue;
        await visit(await trie.lookupNode(child), childPath);
      }
    }
  };

  if (!equalsBytes(trie.root(), trie.EMPTY_TRIE_ROOT)) await visit(await trie.lookupNode(trie.root()), []);
  return { slots, next };
}

/**
 * {@link storageRange} of `address`'s storage in the state at `stateRoot` (no slots for a missing
 * account). The account is read from a state opened at that root, as proofs are: the shared head
 * state's root moves when a block commits.
 */
export async function accountStorageRange(
  nodes: TrieNodeStore,
  common: Common,
  stateRoot: Uint8Array,
  address: PrefixedHexString,
  start: Uint8Array,
  limit: number,
): Promise<StorageRange> {
  const account = await stateManagerAt(nodes, common, stateRoot).getAccount(new Address(hexToBytes(address)));
  if (account === undefined) return { slots: [], next: undefined };
  const trie = new MerklePatriciaTrie({
    db: nodes,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common,
    root: account.storageRoot,
  });
  return storageRange(trie, start, limit);
}

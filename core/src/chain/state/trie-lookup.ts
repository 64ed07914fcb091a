import { BranchMPTNode, ExtensionMPTNode, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { equalsBytes } from '@ethereumjs/util';
import { nibblesOf, readNode, type Reference } from './trie-batch-update.js';

/**
 * The value at `key` (the trie's own key, already hashed) in `trie` at its root, or null: what
 * ethereumjs' `get` answers, found by following the key's nibbles down the nodes on its path.
 * ethereumjs finds a path through its general trie walker (a task queue and a callback per
 * node), which cost a lookup of a new account about three times the reads and decoding of the
 * nodes themselves.
 */
export async function trieValue(trie: MerklePatriciaTrie, key: Uint8Array): Promise<Uint8Array | null> {
  const root = trie.root();
  if (equalsBytes(root, trie.EMPTY_TRIE_ROOT)) return null;
  const db = trie.database();
  const nibbles = nibblesOf(key);
  let reference: Reference = root;
  let depth = 0;
  for (;;) {
    const node = await readNode(db, reference);
    if (node instanceof BranchMPTNode) {
      if (depth === nibbles.length) return node.value();
      const child = node.getBranch(nibbles[depth]!);
      if (child === null) return null;
      reference = child;
      depth++;
      continue;
    }
    const path = node.key();
    // A well-formed extension always leads down; a damaged one must not hold the walk in place.
    if (node instanceof ExtensionMPTNode && path.length === 0) throw new Error('a trie extension node has no path');
    if (node instanceof ExtensionMPTNode ? !startsWith(nibbles, path, depth) : !endsWith(nibbles, path, depth))
      return null;
    if (!(node instanceof ExtensionMPTNode)) return node.value();
    reference = node.value() as Reference;
    depth += path.length;
  }
}

/** Whether `nibbles` from `depth` on begins with `path`. */
function startsWith(nibbles: readonly number[], path: readonly number[], depth: number): boolean {
  if (depth + path.length > nibbles.length) return false;
  return path.every((nibble, index) => nibbles[depth + index] === nibble);
}

/** Whether `nibbles` from `depth` on is `path`. */
function endsWith(nibbles: readonly number[], path: readonly number[], depth: number): boolean {
  return depth + path.length === nibbles.length && startsWith(nibbles, path, depth);
}

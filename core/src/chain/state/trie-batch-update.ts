import {
  BranchMPTNode,
  decodeMPTNode,
  decodeRawMPTNode,
  ExtensionMPTNode,
  LeafMPTNode,
  type CheckpointDB,
  type MerklePatriciaTrie,
  type MPTNode,
} from '@ethereumjs/mpt';
import type { NestedUint8Array } from '@ethereumjs/rlp';
import { bytesToHex, equalsBytes, type BatchDBOp } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import { EventLoopTurns, type Turns } from '../../rpc/event-loop-turns.js';

/** A key's new value (undefined: the key is deleted). Keys are the trie's own: already hashed, all of one length. */
export interface TrieUpdate {
  readonly key: Uint8Array;
  readonly value: Uint8Array | undefined;
}

/**
 * How a parent refers to a child: the child's hash, or the child itself (as an RLP list) when it
 * encodes to under 32 bytes. Left as is, a reference keeps the child as stored.
 */
export type Reference = Uint8Array | NestedUint8Array;

/** A node the update changes or makes, kept in memory until the whole update is applied. */
type Changed =
  | { readonly kind: 'leaf'; readonly path: number[]; readonly value: Uint8Array }
  | { readonly kind: 'extension'; readonly path: number[]; readonly child: Slot }
  | { readonly kind: 'branch'; readonly children: Slot[] };

/** A place for a node: empty, an unchanged node by reference, or a changed one. */
type Slot = null | Reference | Changed;

/** A key to be written, as nibbles. */
interface Entry {
  readonly nibbles: number[];
  readonly value: Uint8Array | undefined;
}

const isChanged = (slot: Slot): slot is Changed => slot !== null && !Array.isArray(slot) && 'kind' in slot;

export function nibblesOf(key: Uint8Array): number[] {
  const nibbles = new Array<number>(key.length * 2);
  for (let index = 0; index < key.length; index++) {
    nibbles[2 * index] = key[index]! >> 4;
    nibbles[2 * index + 1] = key[index]! & 15;
  }
  return nibbles;
}

/**
 * Applies many writes to a Merkle Patricia trie at once, with the result ethereumjs' `put` and
 * `del` give one key at a time: the same root and the same stored nodes. One at a time, every
 * write hashes and stores its whole path again, so a block that changes 600 accounts hashed and
 * stored each upper node hundreds of times, all but the last version garbage; here each node
 * the writes change is built in memory, then hashed and stored once. Returns the new root; the
 * trie is moved to it. A large update (a 60M-gas block's changes, several thousand nodes) would
 * hold the event loop for tens of milliseconds: it gives other work a turn when `turns` says so.
 */
export async function updateTrie(
  trie: MerklePatriciaTrie,
  updates: readonly TrieUpdate[],
  hash: (bytes: Uint8Array) => Uint8Array,
  turns: Turns = new EventLoopTurns(),
): Promise<Uint8Array> {
  if (updates.length === 0) return trie.root();
  const db = trie.database();
  // A key written twice keeps its last value, as one write after another would.
  const latest = new Map(updates.map(({ key, value }) => [bytesToHex(key), { key, value }]));
  const entries = [...latest]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, { key, value }]) => ({ nibbles: nibblesOf(key), value }));
  const keyLength = entries[0]!.nibbles.length;
  if (entries.some(({ nibbles }) => nibbles.length !== keyLength))
    throw new Error('a batch trie update takes keys of one length');
  const root = trie.root();
  const start: Slot = equalsBytes(root, trie.EMPTY_TRIE_ROOT) ? null : root;
  const updated = await update(new NodeReader(db), start, 0, entries, turns);
  const writes: BatchDBOp[] = [];
  const stored = updated === null ? null : await storeInTurns(writes, hash, updated, turns);
  trie.root(stored === null ? trie.EMPTY_TRIE_ROOT : (stored as Uint8Array));
  await db.batch(writes);
  return trie.root();
}

/** Stores the changed nodes under `root`: the subtrie under each of the root's children in turn. */
async function storeInTurns(
  writes: BatchDBOp[],
  hash: (bytes: Uint8Array) => Uint8Array,
  root: Slot,
  turns: Turns,
): Promise<Reference> {
  if (!isChanged(root) || root.kind !== 'branch') return store(writes, hash, root, true);
  const children: Slot[] = [];
  for (const child of root.children) {
    // A child stored is its reference: an unchanged node to the root's own store below.
    children.push(child === null ? null : store(writes, hash, child));
    const turn = turns.pause();
    if (turn !== undefined) await turn;
  }
  return store(writes, hash, { kind: 'branch', children }, true);
}

/** Reads unchanged nodes into changeable form. */
class NodeReader {
  constructor(private readonly db: CheckpointDB) {}

  async read(reference: Reference): Promise<Changed> {
    const node = await readNode(this.db, reference);
    if (node instanceof LeafMPTNode) return { kind: 'leaf', path: node.key(), value: node.value() };
    if (node instanceof ExtensionMPTNode)
      return { kind: 'extension', path: node.key(), child: node.value() as Reference };
    // State tries' keys are all of one length, so no branch holds a value.
    if (node.value() !== null) throw new Error('a batch trie update takes no trie with values in branches');
    const children: Slot[] = [];
    for (let index = 0; index < 16; index++) children.push(node.getBranch(index));
    return { kind: 'branch', children };
  }
}

/**
 * Branch nodes lately read, decoded, by hash (about 3 KB each decoded). Every lookup and update
 * walks the trie's upper levels: a block's lookups of 595 new accounts decoded the root and its
 * children hundreds of times, at about 7 µs a branch. A node is named by its hash, so an entry
 * never goes stale, and every state shares them. Readers only read a node; changes build new ones.
 */
const decodedBranches = new LRUCache<string, BranchMPTNode>({ max: 2_048 });

/**
 * Reads of stored nodes under way, per database and hash. Walks that run at once (a block's
 * prefetch starts hundreds) all begin at the root and the upper levels a block has just
 * rewritten: each such node is then read and decoded once, not once per walk.
 */
const reading = new WeakMap<CheckpointDB, Map<string, Promise<MPTNode>>>();

/** The node `reference` names: held in its parent, or stored under its hash. */
export function readNode(db: CheckpointDB, reference: Reference): Promise<MPTNode> {
  // A node held in its parent that fails to decode rejects, as a stored one does.
  if (Array.isArray(reference)) return new Promise((resolve) => resolve(decodeRawMPTNode(reference as Uint8Array[])));
  const hex = Buffer.from(reference.buffer, reference.byteOffset, reference.byteLength).toString('hex');
  const known = decodedBranches.get(hex);
  if (known !== undefined) return Promise.resolve(known);
  let underWay = reading.get(db);
  if (underWay === undefined) reading.set(db, (underWay = new Map<string, Promise<MPTNode>>()));
  const read = underWay.get(hex);
  if (read !== undefined) return read;
  const started = readStoredNode(db, reference, hex).finally(() => underWay.delete(hex));
  underWay.set(hex, started);
  return started;
}

async function readStoredNode(db: CheckpointDB, reference: Uint8Array, hex: string): Promise<MPTNode> {
  const bytes = await db.get(reference);
  if (bytes === undefined) throw new Error(`trie node ${bytesToHex(reference)} is missing`);
  const node = decodeMPTNode(bytes);
  if (node instanceof BranchMPTNode) decodedBranches.set(hex, node);
  return node;
}

/**
 * `slot` (at `depth` nibbles into every key) with `entries` (sorted, all below it) applied. With
 * `turns` (at the root), a branch's children are updated one after another, other work getting
 * turns between them; below, each branch's children at once, so that their reads overlap.
 */
async function update(
  reader: NodeReader,
  slot: Slot,
  depth: number,
  entries: readonly Entry[],
  turns?: Turns,
): Promise<Slot> {
  if (entries.length === 0) return slot;
  if (slot === null)
    return build(
      depth,
      entries.filter(({ value }) => value !== undefined),
    );
  const node = isChanged(slot) ? slot : await reader.read(slot);
  if (node.kind === 'leaf') {
    // The leaf's key, unless an entry replaces or deletes it, joins the entries and the rest is built afresh.
    const leafKey = [...entries[0]!.nibbles.slice(0, depth), ...node.path];
    const kept = entries.some(({ nibbles }) => equalFrom(nibbles, leafKey, depth))
      ? []
      : [{ nibbles: leafKey, value: node.value }];
    return build(depth, [...kept, ...entries].filter(({ value }) => value !== undefined).sort(byNibbles));
  }
  if (node.kind === 'extension') {
    let shared = node.path.length;
    for (const { nibbles } of entries) shared = Math.min(shared, sharedLength(node.path, nibbles, depth));
    if (shared === node.path.length)
      return joined(reader, node.path, await update(reader, node.child, depth + shared, entries));
    // Some keys leave the extension's path: it becomes a branch where they leave, below what all share.
    const rest = node.path.slice(shared + 1);
    const children: Slot[] = new Array<Slot>(16).fill(null);
    children[node.path[shared]!] =
      rest.length === 0 ? node.child : { kind: 'extension', path: rest, child: node.child };
    const branch = await update(reader, { kind: 'branch', children }, depth + shared, entries);
    return joined(reader, node.path.slice(0, shared), branch);
  }
  const children = [...node.children];
  const updateChild = async ([nibble, group]: [number, Entry[]]) => {
    children[nibble] = await update(reader, children[nibble]!, depth + 1, group);
  };
  const groups = groupByNibble(entries, depth);
  if (turns === undefined) await Promise.all(groups.map(updateChild));
  else
    for (const group of groups) {
      await updateChild(group);
      const turn = turns.pause();
      if (turn !== undefined) await turn;
    }
  const left = children.flatMap((child, nibble) => (child === null ? [] : [nibble]));
  if (left.length === 0) return null;
  // A branch left with one child is folded into it, as the trie never keeps such a branch.
  if (left.length === 1) return joined(reader, [left[0]!], children[left[0]!]!);
  return { kind: 'branch', children };
}

/** A new subtrie holding `entries` (sorted, none deleted), `depth` nibbles into their keys. */
function build(depth: number, entries: readonly Entry[]): Slot {
  if (entries.length === 0) return null;
  const first = entries[0]!;
  if (entries.length === 1) return { kind: 'leaf', path: first.nibbles.slice(depth), value: first.value! };
  // Sorted keys: what the first and last share, all share.
  const shared = sharedLength(first.nibbles.slice(depth), entries[entries.length - 1]!.nibbles, depth);
  if (shared > 0)
    return {
      kind: 'extension',
      path: first.nibbles.slice(depth, depth + shared),
      child: build(depth + shared, entries),
    };
  const children: Slot[] = new Array<Slot>(16).fill(null);
  for (const [nibble, group] of groupByNibble(entries, depth)) children[nibble] = build(depth + 1, group);
  return { kind: 'branch', children };
}

/** `path` followed by `slot`, in the trie's form: leaves and extensions take the path into their own. */
async function joined(reader: NodeReader, path: number[], slot: Slot): Promise<Slot> {
  if (path.length === 0 || slot === null) return slot;
  const node = isChanged(slot) ? slot : await reader.read(slot);
  if (node.kind === 'leaf') return { kind: 'leaf', path: [...path, ...node.path], value: node.value };
  if (node.kind === 'extension') return { kind: 'extension', path: [...path, ...node.path], child: node.child };
  // An unchanged branch stays as stored, by its reference.
  return { kind: 'extension', path, child: slot };
}

/**
 * Encodes a changed node, its changed children first, and lists for storing those of 32 bytes or
 * more (and the root, always) under their hash, as ethereumjs' `_formatNode` does. Returns its
 * reference.
 */
function store(writes: BatchDBOp[], hash: (bytes: Uint8Array) => Uint8Array, slot: Slot, root = false): Reference {
  if (!isChanged(slot)) return slot ?? new Uint8Array();
  let node: MPTNode;
  if (slot.kind === 'leaf') node = new LeafMPTNode(slot.path, slot.value);
  else if (slot.kind === 'extension')
    node = new ExtensionMPTNode(slot.path, store(writes, hash, slot.child) as Uint8Array);
  else {
    const branch = new BranchMPTNode();
    slot.children.forEach((child, nibble) => {
      if (child !== null) branch.setBranch(nibble, store(writes, hash, child) as Uint8Array);
    });
    node = branch;
  }
  const encoded = node.serialize();
  if (encoded.length < 32 && !root) return node.raw() as NestedUint8Array;
  const nodeHash = hash(encoded);
  writes.push({ type: 'put', key: nodeHash, value: encoded });
  return nodeHash;
}

function groupByNibble(entries: readonly Entry[], depth: number): [number, Entry[]][] {
  const groups = new Map<number, Entry[]>();
  for (const entry of entries) {
    const nibble = entry.nibbles[depth]!;
    const group = groups.get(nibble);
    if (group === undefined) groups.set(nibble, [entry]);
    else group.push(entry);
  }
  return [...groups];
}

/** How many nibbles `path` shares with `nibbles` from `depth` on. */
function sharedLength(path: readonly number[], nibbles: readonly number[], depth: number): number {
  let shared = 0;
  while (shared < path.length && depth + shared < nibbles.length && path[shared] === nibbles[depth + shared]) shared++;
  return shared;
}

function equalFrom(a: readonly number[], b: readonly number[], from: number): boolean {
  if (a.length !== b.length) return false;
  for (let index = from; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

function byNibbles(a: Entry, b: Entry): number {
  for (let index = 0; index < a.nibbles.length; index++) {
    const difference = a.nibbles[index]! - b.nibbles[index]!;
    if (difference !== 0) return difference;
  }
  return 0;
}

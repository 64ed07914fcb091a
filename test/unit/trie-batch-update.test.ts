import { expect } from 'chai';
import { BranchMPTNode, decodeMPTNode, LeafMPTNode, MerklePatriciaTrie } from '@ethereumjs/mpt';
import { bytesToHex, bytesToUnprefixedHex, hexToBytes, MapDB } from '@ethereumjs/util';
import { EventLoopTurns } from '@evmnode/core';
import { keccak256, trieValue, updateTrie, type TrieUpdate } from '@evmnode/core/internal';
import { countTurns } from '../support/turn-counter.js';

/** A deterministic byte source, so that a failing case can be run again. */
function randomBytes(seed: number): (length: number) => Uint8Array {
  let state = seed >>> 0 || 1;
  return (length) => {
    const bytes = new Uint8Array(length);
    for (let index = 0; index < length; index++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      bytes[index] = state & 255;
    }
    return bytes;
  };
}

/** A trie on its own in-memory database, keys not hashed: the cases choose the keys' shapes. */
const newTrie = () => new MerklePatriciaTrie({ db: new MapDB(), useKeyHashing: false });

/** The hashes of every stored node reachable from the trie's root (the walk fails on a missing one). */
async function storedNodesOf(trie: MerklePatriciaTrie): Promise<Set<string>> {
  const nodes = new Set<string>();
  await trie.walkTrie(trie.root(), (reference, node, _key, controller) => {
    if (reference instanceof Uint8Array && reference.length === 32) nodes.add(bytesToHex(reference));
    controller.allChildren(node!);
  });
  return nodes;
}

/** Whether a value the trie's database holds (bytes, or hex as ethereumjs stores them) is a branch node. */
const isBranch = (value: unknown): boolean =>
  value !== undefined &&
  decodeMPTNode(typeof value === 'string' ? hexToBytes(`0x${value}`) : (value as Uint8Array)) instanceof BranchMPTNode;

/** Counts the branch nodes read from the trie's database from now on. */
function countBranchReads(trie: MerklePatriciaTrie): () => number {
  const db = trie.database().db;
  const get = db.get.bind(db);
  let reads = 0;
  db.get = async (key) => {
    const value = await get(key);
    if (isBranch(value)) reads++;
    return value;
  };
  return () => reads;
}

/** One of `keys` whose leaf is stored under its own hash (too long to be held in its parent), with that hash. */
async function storedLeafOf(trie: MerklePatriciaTrie, keys: readonly Uint8Array[]): Promise<[Uint8Array, Uint8Array]> {
  for (const key of keys) {
    const { stack } = await trie.findPath(key);
    const leaf = stack.at(-1);
    if (!(leaf instanceof LeafMPTNode)) continue;
    const encoded = leaf.serialize();
    if (encoded.length >= 32) return [key, keccak256(encoded)];
  }
  throw new Error('no leaf stored under its hash');
}

/** How many stored branch nodes the trie's root reaches. */
async function branchCountOf(trie: MerklePatriciaTrie): Promise<number> {
  let branches = 0;
  await trie.walkTrie(trie.root(), (reference, node, _key, controller) => {
    if (node instanceof BranchMPTNode && reference instanceof Uint8Array && reference.length === 32) branches++;
    controller.allChildren(node!);
  });
  return branches;
}

/** The value of each of `keys` in the trie (null where it has none). */
async function valuesOf(trie: MerklePatriciaTrie, keys: readonly Uint8Array[]): Promise<(string | null)[]> {
  return Promise.all(
    keys.map(async (key) => ((value) => (value === null ? null : bytesToHex(value)))(await trie.get(key))),
  );
}

/**
 * Keys that share long prefixes (extensions, and branches deep down) and values short enough to
 * be held inside their parent node (under 32 bytes encoded) as well as long ones.
 */
function keyFactory(random: (length: number) => Uint8Array): () => Uint8Array {
  const prefixes = [random(0), random(3), random(10), random(25), random(31)];
  return () => {
    const prefix = prefixes[random(1)[0]! % prefixes.length]!;
    const key = new Uint8Array(32);
    key.set(random(32));
    key.set(prefix);
    return key;
  };
}

const valueOf = (random: (length: number) => Uint8Array) =>
  random(1 + (random(1)[0]! % 3 === 0 ? 40 : random(1)[0]! % 6));

describe('batch trie update', () => {
  for (let seed = 1; seed <= 40; seed++) {
    it(`gives the root and nodes that one write at a time gives (case ${seed})`, async () => {
      const random = randomBytes(seed);
      const newKey = keyFactory(random);
      const base = newTrie();
      const keys: Uint8Array[] = [];
      for (let count = random(1)[0]! % 60; count > 0; count--) {
        const key = newKey();
        keys.push(key);
        await base.put(key, valueOf(random));
      }
      const updates: TrieUpdate[] = [];
      const touched = new Set<string>();
      const add = (key: Uint8Array, value: Uint8Array | undefined) => {
        if (touched.has(bytesToHex(key))) return;
        touched.add(bytesToHex(key));
        updates.push({ key, value });
      };
      for (const key of keys) {
        const choice = random(1)[0]! % 4;
        if (choice === 0) add(key, undefined);
        else if (choice === 1) add(key, valueOf(random));
      }
      for (let count = random(1)[0]! % 40; count > 0; count--) add(newKey(), valueOf(random));
      // Deleting keys that are not there changes nothing.
      add(newKey(), undefined);
      // Some cases delete every key.
      if (seed % 10 === 0) for (const key of keys) add(key, undefined);

      const oneByOne = base.shallowCopy(false);
      for (const { key, value } of updates) {
        if (value === undefined) await oneByOne.del(key);
        else await oneByOne.put(key, value);
      }
      const batched = base.shallowCopy(false);
      const root = await updateTrie(batched, updates, keccak256);

      expect(bytesToHex(root)).to.equal(bytesToHex(oneByOne.root()));
      expect(bytesToHex(batched.root())).to.equal(bytesToHex(root));
      // Read from a trie on a database that holds only the base trie and what the batch stored.
      const stored = newTrie();
      const baseNodes = (base.database().db as MapDB<string, Uint8Array>)._database;
      const batchNodes = (batched.database().db as MapDB<string, Uint8Array>)._database;
      for (const [key, value] of [...baseNodes, ...batchNodes]) await stored.database().db.put(key, value);
      stored.root(root);
      const allKeys = [...keys, ...updates.map(({ key }) => key)];
      expect(await valuesOf(stored, allKeys)).to.deep.equal(await valuesOf(oneByOne, allKeys));
      expect(await storedNodesOf(stored)).to.deep.equal(await storedNodesOf(oneByOne));
    });
  }

  it('stores only the nodes of the new trie, each once', async () => {
    const random = randomBytes(7);
    const base = newTrie();
    const updates: TrieUpdate[] = Array.from({ length: 300 }, () => ({ key: random(32), value: random(70) }));
    const stored: string[] = [];
    const db = base.database();
    const put = db.put.bind(db);
    db.put = (key, value) => {
      stored.push(bytesToHex(key));
      return put(key, value);
    };
    const batch = db.batch.bind(db);
    db.batch = (operations) => {
      for (const operation of operations) stored.push(bytesToHex(operation.key));
      return batch(operations);
    };
    await updateTrie(base, updates, keccak256);
    expect(new Set(stored).size).to.equal(stored.length);
    expect(new Set(stored)).to.deep.equal(await storedNodesOf(base));
  });

  it('updates and stores in turns, one per child of the root, giving the root and nodes that one write at a time gives', async () => {
    const random = randomBytes(11);
    const base = newTrie();
    for (let count = 0; count < 400; count++) await base.put(random(32), random(70));
    const updates: TrieUpdate[] = Array.from({ length: 2_500 }, () => ({ key: random(32), value: random(70) }));
    const oneByOne = base.shallowCopy(false);
    for (const { key, value } of updates) await oneByOne.put(key, value!);
    const batched = base.shallowCopy(false);
    const turns = countTurns();
    // A turn at every chance the update gives.
    const root = await updateTrie(batched, updates, keccak256, new EventLoopTurns(0));
    expect(turns.stop(), "turns after each of the root's 16 children, updated and then stored").to.be.at.least(32);
    expect(bytesToHex(root)).to.equal(bytesToHex(oneByOne.root()));
    expect(await storedNodesOf(batched)).to.deep.equal(await storedNodesOf(oneByOne));
  });

  it('keeps the last value of a key written twice', async () => {
    const key = new Uint8Array(32).fill(7);
    const other = new Uint8Array(32).fill(9);
    const trie = newTrie();
    const writes = [
      { key, value: Uint8Array.of(1) },
      { key: other, value: Uint8Array.of(3) },
      { key, value: Uint8Array.of(2) },
    ];
    await updateTrie(trie, writes, keccak256);
    expect(await trie.get(key)).to.deep.equal(Uint8Array.of(2));
    expect(await trie.get(other)).to.deep.equal(Uint8Array.of(3));
    const deleted = newTrie();
    await updateTrie(deleted, [...writes, { key, value: undefined }], keccak256);
    expect(await deleted.get(key)).to.equal(null);
    expect(bytesToHex(deleted.root())).to.equal(bytesToHex(await updateTrie(newTrie(), [writes[1]!], keccak256)));
  });

  it('refuses keys of different lengths', async () => {
    const updates = [
      { key: new Uint8Array(32), value: Uint8Array.of(1) },
      { key: new Uint8Array(20), value: Uint8Array.of(1) },
    ];
    let refused: Error | undefined;
    await updateTrie(newTrie(), updates, keccak256).catch((error: Error) => (refused = error));
    expect(refused?.message).to.equal('a batch trie update takes keys of one length');
  });
});

describe('trie lookup', () => {
  for (let seed = 101; seed <= 120; seed++) {
    it(`answers what ethereumjs' get answers, for keys there and keys not (case ${seed})`, async () => {
      const random = randomBytes(seed);
      const newKey = keyFactory(random);
      const trie = newTrie();
      const keys = Array.from({ length: 1 + (random(1)[0]! % 80) }, newKey);
      for (const key of keys) await trie.put(key, valueOf(random));
      // Keys not there, most sharing a prefix with keys that are.
      const absent = Array.from({ length: 40 }, newKey);
      for (const key of [...keys, ...absent]) {
        const expected = await trie.get(key);
        const found = await trieValue(trie, key);
        expect(found === null ? null : bytesToHex(found)).to.equal(expected === null ? null : bytesToHex(expected));
      }
    });
  }

  it('reads a branch from the database once, and earlier roots stay readable through later updates', async () => {
    const random = randomBytes(7);
    const newKey = keyFactory(random);
    const trie = newTrie();
    const keys = Array.from({ length: 300 }, newKey);
    const expected: { root: Uint8Array; values: (string | null)[] }[] = [];
    for (let round = 0; round < 5; round++) {
      const updates = keys.flatMap((key) => (random(1)[0]! % 3 === 0 ? [{ key, value: valueOf(random) }] : []));
      const oneByOne = trie.shallowCopy(false);
      for (const { key, value } of updates) await oneByOne.put(key, value);
      await updateTrie(trie, updates, keccak256);
      expected.push({ root: trie.root(), values: await valuesOf(oneByOne, keys) });
    }
    // Updates build new nodes and never change a decoded one that lookups share.
    for (const { root, values } of expected) {
      const atRoot = trie.shallowCopy(false);
      atRoot.root(root);
      const found = await Promise.all(keys.map((key) => trieValue(atRoot, key)));
      expect(found.map((value) => (value === null ? null : bytesToHex(value)))).to.deep.equal(values);
    }
    const branchReads = countBranchReads(trie);
    const fresh = newTrie();
    for (const key of keys) await fresh.put(key, valueOf(random));
    const freshBranchReads = countBranchReads(fresh);
    for (let pass = 0; pass < 2; pass++) for (const key of keys) await trieValue(fresh, key);
    // A trie never read before: each of its branches is read from the database once, for 600 lookups.
    expect(freshBranchReads()).to.be.greaterThan(0);
    expect(freshBranchReads()).to.equal(await branchCountOf(fresh));
    // One whose branches were read by the updates above: none again.
    for (const key of keys) await trieValue(trie, key);
    expect(branchReads()).to.equal(0);
  });

  it('reads each branch once for lookups running at once, and forgets a read that failed', async () => {
    // A seed no other case uses: branches decoded by other cases are shared, and would not be read.
    const random = randomBytes(4242);
    const newKey = keyFactory(random);
    const trie = newTrie();
    const keys = Array.from({ length: 200 }, newKey);
    for (const key of keys) await trie.put(key, valueOf(random));
    const expected = await valuesOf(trie, keys);
    const branchReads = countBranchReads(trie);
    // Every key looked up twice, all at once: each walk starts at the same root.
    const found = await Promise.all([...keys, ...keys].map((key) => trieValue(trie, key)));
    const hex = (value: Uint8Array | null) => (value === null ? null : bytesToHex(value));
    expect(found.map(hex)).to.deep.equal([...expected, ...expected]);
    expect(branchReads()).to.equal(await branchCountOf(trie));

    // A leaf stored under its hash, taken away: every lookup of its key fails, and once it is back, reads again.
    const [leafKey, leafHash] = await storedLeafOf(trie, keys);
    const db = trie.database().db;
    const leafKeyInDb = bytesToUnprefixedHex(leafHash);
    const stored = await db.get(leafKeyInDb);
    await db.del(leafKeyInDb);
    const failed = await Promise.allSettled([trieValue(trie, leafKey), trieValue(trie, leafKey)]);
    expect(failed.map((outcome) => outcome.status === 'rejected' && String(outcome.reason))).to.deep.equal([
      `Error: trie node ${bytesToHex(leafHash)} is missing`,
      `Error: trie node ${bytesToHex(leafHash)} is missing`,
    ]);
    await db.put(leafKeyInDb, stored!);
    expect(hex(await trieValue(trie, leafKey))).to.equal(expected[keys.indexOf(leafKey)]);
  });

  it('finds nothing in an empty trie', async () => {
    expect(await trieValue(newTrie(), new Uint8Array(32))).to.equal(null);
  });
});

import { expect } from 'chai';
import { LeafMPTNode, MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP, type NestedUint8Array } from '@ethereumjs/rlp';
import {
  Account,
  Address,
  bigIntToBytes,
  bytesToHex,
  createAccountFromRLP,
  hexToBytes,
  setLengthLeft,
} from '@ethereumjs/util';
import { createVM } from '@ethereumjs/vm';
import { Bucket, bucketRange, EventLoopTurns, MemoryStore } from '@evmnode/core';
import {
  evmCommon,
  readAccounts,
  readParentHashSlot,
  stateManagerAt,
  storeParentHash,
  TrieNodeStore,
  TrieReads,
  type WorldState,
} from '@evmnode/core/internal';
import { CountingReads } from '../support/counting-store.js';
import { countTurns } from '../support/turn-counter.js';

const common = evmCommon(713715n);
const contract = new Address(hexToBytes('0x00000000000000000000000000000000000000c0'));
const holder = new Address(hexToBytes('0x00000000000000000000000000000000000000a1'));
const slot = (n: number): Uint8Array => setLengthLeft(new Uint8Array([n]), 32);
const code = hexToBytes('0x6001600055');

/** A node store that counts the trie nodes read from it. */
class CountingNodeStore extends TrieNodeStore {
  reads = 0;

  override get(key: string | Uint8Array) {
    this.reads++;
    return super.get(key);
  }
}

/** A contract with code and two slots, and a holder: the state every case starts from. */
async function baseState(nodes: TrieNodeStore): Promise<Uint8Array> {
  const state = stateManagerAt(nodes, common);
  await state.putAccount(contract, new Account(1n, 0n));
  await state.putCode(contract, code);
  await state.putStorage(contract, slot(1), hexToBytes('0x11'));
  await state.putStorage(contract, slot(2), hexToBytes('0x22'));
  await state.putAccount(holder, new Account(0n, 5n));
  return state.getStateRoot();
}

/** What the chain store does with a block's trie nodes: writes them, then caches them. Resolves to how many it wrote. */
async function commitBlock(kv: MemoryStore, nodes: TrieNodeStore): Promise<number> {
  const batch = kv.batch();
  const writes = nodes.moveInto(batch, batch);
  const written = batch.length;
  await batch.write();
  nodes.written(writes);
  return written;
}

/** What a block replay does to its state: reads, writes, a reverted checkpoint, a clear, a delete. */
async function replayLike(state: WorldState): Promise<string[]> {
  const seen: string[] = [];
  const note = async (read: Promise<Uint8Array>) => seen.push(bytesToHex(await read));
  await state.checkpoint();
  await note(state.getStorage(contract, slot(1)));
  await note(state.getCode(contract));
  await state.checkpoint();
  await state.putStorage(contract, slot(1), hexToBytes('0x99'));
  await note(state.getStorage(contract, slot(1)));
  await note(state.getStorage(contract, slot(2)));
  await state.revert();
  await note(state.getStorage(contract, slot(1)));
  await state.putStorage(contract, slot(3), hexToBytes('0x33'));
  await note(state.getStorage(contract, slot(3)));
  await state.clearStorage(contract);
  await note(state.getStorage(contract, slot(2)));
  seen.push(String((await state.getAccount(holder))?.balance));
  await state.deleteAccount(holder);
  seen.push(String((await state.getAccount(holder))?.balance));
  await state.commit();
  seen.push(bytesToHex(await state.getStateRoot()));
  return seen;
}

describe('WorldState', () => {
  it('answers from shared trie reads exactly as from the trie, and walks the trie no more once they hold the values', async () => {
    const nodes = new CountingNodeStore(new MemoryStore());
    const root = await baseState(nodes);
    const reads = new TrieReads(1024 * 1024);
    const open = (withReads: boolean) => {
      const state = stateManagerAt(nodes, common, root, { trieNodes: 100, entries: 'all' });
      if (withReads) state.trieReads = reads;
      return state;
    };

    const plain = await replayLike(open(false));
    expect(plain.slice(0, 9)).to.deep.equal([
      '0x11',
      bytesToHex(code),
      '0x99',
      '0x22',
      '0x11',
      '0x33',
      '0x',
      '5',
      'undefined',
    ]);
    expect(await replayLike(open(true))).to.deep.equal(plain);

    nodes.reads = 0;
    const warm = open(true);
    await warm.checkpoint();
    expect(bytesToHex(await warm.getStorage(contract, slot(2)))).to.equal('0x22');
    expect(bytesToHex(await warm.getCode(contract))).to.equal(bytesToHex(code));
    expect((await warm.getAccount(holder))?.balance).to.equal(5n);
    expect(nodes.reads).to.equal(0);
  });

  it('writes slots into the trie once, at flush, to the same root as a state without caches', async () => {
    const nodes = new TrieNodeStore(new MemoryStore());
    const root = await baseState(nodes);
    const write = async (state: WorldState) => {
      for (let n = 1; n <= 40; n++) await state.putStorage(contract, slot(n), new Uint8Array([n, n]));
      await state.putStorage(contract, slot(2), new Uint8Array());
      return bytesToHex(await state.getStateRoot());
    };
    const cached = stateManagerAt(nodes, common, root, { trieNodes: 100, entries: 100 });
    expect(await write(cached)).to.equal(await write(stateManagerAt(nodes, common, root)));
    expect(bytesToHex(await cached.getStorage(contract, slot(2)))).to.equal('0x');
    expect(
      bytesToHex(await stateManagerAt(nodes, common, hexToBytes(await write(cached))).getStorage(contract, slot(40))),
    ).to.equal('0x2828');
  });

  it('reads accounts concurrently, each once, into the cache, giving other work turns: what the block producer does before a block', async () => {
    const nodes = new CountingNodeStore(new MemoryStore());
    const state = stateManagerAt(nodes, common, await baseState(nodes), { trieNodes: 100, entries: 100 });
    const fresh = Array.from({ length: 40 }, (_, n) => new Address(setLengthLeft(new Uint8Array([0xf0, n]), 20)));
    nodes.reads = 0;

    const turns = countTurns();
    // A turn at every chance the reads give: the walks, all under way at once, wait for one together.
    const accounts = await readAccounts(state, [holder, ...fresh, holder, contract], new EventLoopTurns(0));
    expect(turns.stop(), 'turns while the accounts were read').to.equal(1);
    expect([...accounts.keys()]).to.deep.equal([holder, ...fresh, contract].map((address) => address.toString()));
    expect(accounts.get(holder.toString())?.balance).to.equal(5n);
    expect(accounts.get(contract.toString())?.nonce).to.equal(1n);
    expect(fresh.map((address) => accounts.get(address.toString()))).to.deep.equal(fresh.map(() => undefined));

    const walked = nodes.reads;
    expect(walked).to.be.greaterThan(0);
    for (const address of [holder, contract, ...fresh]) await state.getAccount(address);
    expect(nodes.reads).to.equal(walked);
  });

  it("reads, before a block, the history slot it writes, so that the block's flush reads no node from the database", async () => {
    const kv = new CountingReads();
    const history = new Address(hexToBytes('0x0000f90827f1c53a10cb7a02335b175320002935')); // EIP-2935's
    // A history contract holding 300 hashes, so that a slot's path runs through several nodes.
    const setupNodes = new TrieNodeStore(kv);
    const setup = stateManagerAt(setupNodes, common);
    await setup.putAccount(history, new Account(1n));
    await setup.putCode(history, code);
    for (let n = 1n; n <= 300n; n++)
      await setup.putStorage(history, setLengthLeft(bigIntToBytes(n), 32), setLengthLeft(bigIntToBytes(n), 32));
    const root = await setup.getStateRoot();
    await commitBlock(kv, setupNodes);
    const parentHash = new Uint8Array(32).fill(0xab);

    // Block 151 stores its parent's hash in slot 150; each run starts from nodes the process has not read.
    const databaseReadsAtFlush = async (readFirst: boolean) => {
      const state = stateManagerAt(new TrieNodeStore(kv), common, root, { trieNodes: 0, entries: 100 });
      const vm = await createVM({ common, stateManager: state });
      if (readFirst) await readParentHashSlot(vm, 151n);
      await state.checkpoint();
      await storeParentHash(vm, 151n, parentHash);
      kv.gets = 0;
      await state.commit();
      expect(bytesToHex(await state.getStorage(history, setLengthLeft(bigIntToBytes(150n), 32)))).to.equal(
        bytesToHex(parentHash),
      );
      return { reads: kv.gets, root: bytesToHex(await state.getStateRoot()) };
    };
    const unread = await databaseReadsAtFlush(false);
    const read = await databaseReadsAtFlush(true);
    expect(unread.reads, 'reads at flush without the slot read first').to.be.greaterThan(0);
    expect(read.reads, 'reads at flush with the slot read first').to.equal(0);
    expect(read.root).to.equal(unread.root);
  });

  it('hands out accounts that callers may change without changing the state, until they write them', async () => {
    const nodes = new TrieNodeStore(new MemoryStore());
    const state = stateManagerAt(nodes, common, await baseState(nodes), { trieNodes: 100, entries: 100 });
    const read = (await state.getAccount(holder))!;
    read.balance += 100n;
    expect((await state.getAccount(holder))?.balance).to.equal(5n);
    await state.putAccount(holder, read);
    read.balance = 1n;
    const written = (await state.getAccount(holder))!;
    expect(written.balance).to.equal(105n);
    expect(written).to.not.equal(await state.getAccount(holder));
    await state.checkpoint();
    await state.putAccount(holder, new Account(0n, 7n));
    expect((await state.getAccount(holder))?.balance).to.equal(7n);
    await state.revert();
    expect((await state.getAccount(holder))?.balance).to.equal(105n);
  });

  it('encodes a written account once, when the block is flushed, to the same root as a state without caches', async () => {
    const nodes = new TrieNodeStore(new MemoryStore());
    const root = await baseState(nodes);
    const accounts = Array.from({ length: 20 }, (_, n) => new Address(setLengthLeft(new Uint8Array([0xe0, n]), 20)));
    // A block: one checkpoint, committed (and so flushed) at its end.
    const writes = async (state: WorldState) => {
      await state.checkpoint();
      for (let round = 1; round <= 5; round++)
        for (const address of accounts)
          await state.putAccount(address, new Account(BigInt(round), 10n * BigInt(round)));
    };
    const serialize = Reflect.get<Account, 'serialize'>(Account.prototype, 'serialize');
    let encoded = 0;
    Account.prototype.serialize = function (this: Account) {
      encoded++;
      return serialize.call(this);
    };
    try {
      const cached = stateManagerAt(nodes, common, root, { trieNodes: 100, entries: 100 });
      await writes(cached);
      expect(encoded).to.equal(0);
      await cached.commit();
      expect(encoded).to.equal(accounts.length);
      const uncached = stateManagerAt(nodes, common, root);
      await writes(uncached);
      await uncached.commit();
      expect(bytesToHex(await cached.getStateRoot())).to.equal(bytesToHex(await uncached.getStateRoot()));
      expect((await cached.getAccount(accounts[3]!))?.balance).to.equal(50n);
    } finally {
      Account.prototype.serialize = serialize;
    }
  });

  it('gives other work turns while it flushes a block, to the same root as a flush in one go', async () => {
    const nodes = new TrieNodeStore(new MemoryStore());
    const root = await baseState(nodes);
    const accounts = Array.from(
      { length: 300 },
      (_, n) => new Address(setLengthLeft(bigIntToBytes(BigInt(n + 1)), 20)),
    );
    const slots = Array.from({ length: 40 }, (_, n) => slot(n + 3));
    // A block's writes, then its flush, counting the turns other work gets meanwhile.
    const flushBlock = async (state: WorldState) => {
      await state.checkpoint();
      for (const [n, address] of accounts.entries()) await state.putAccount(address, new Account(1n, BigInt(n)));
      for (const key of slots) await state.putStorage(contract, key, hexToBytes('0x33'));
      const turns = countTurns();
      await state.commit();
      return { turns: turns.stop(), root: bytesToHex(await state.getStateRoot()) };
    };
    const inTurns = stateManagerAt(nodes, common, root, { trieNodes: 100, entries: 'all' });
    // A turn at every chance the flush gives.
    inTurns.turns = new EventLoopTurns(0);
    const flushedInTurns = await flushBlock(inTurns);
    const flushedInOneGo = await flushBlock(stateManagerAt(nodes, common, root, { trieNodes: 100, entries: 'all' }));
    expect(flushedInTurns.root).to.equal(flushedInOneGo.root);
    expect(flushedInTurns.turns, 'a turn after each written account and slot').to.be.at.least(
      accounts.length + slots.length,
    );
  });

  it('reads again below a reverted checkpoint what was read inside it, so that it stays cached, and no more', async () => {
    const nodes = new CountingNodeStore(new MemoryStore());
    const state = stateManagerAt(nodes, common, await baseState(nodes), { trieNodes: 100, entries: 'all' });
    await state.checkpoint();
    await state.putStorage(contract, slot(1), hexToBytes('0x77'));
    await state.checkpoint();
    state.recordMisses();
    expect(bytesToHex(await state.getStorage(contract, slot(1)))).to.equal('0x77');
    expect(bytesToHex(await state.getStorage(contract, slot(2)))).to.equal('0x22');
    expect(bytesToHex(await state.getCode(contract))).to.equal(bytesToHex(code));
    await state.putStorage(contract, slot(2), hexToBytes('0x99'));
    expect((await state.getAccount(holder))?.balance).to.equal(5n);
    await state.putAccount(holder, new Account(0n, 9n));
    await state.revert();
    await state.rereadMisses();

    nodes.reads = 0;
    await state.checkpoint();
    expect(bytesToHex(await state.getStorage(contract, slot(1)))).to.equal('0x77');
    expect(bytesToHex(await state.getStorage(contract, slot(2)))).to.equal('0x22');
    expect(bytesToHex(await state.getCode(contract))).to.equal(bytesToHex(code));
    expect((await state.getAccount(holder))?.balance).to.equal(5n);
    expect(nodes.reads).to.equal(0);
    await state.revert();
  });

  it("stores of the trie nodes a block's writes made only those its state holds, and that state reads whole from the store", async () => {
    const kv = new MemoryStore();
    const made = new TrieNodeStore(kv);
    const commit = () => commitBlock(kv, made);
    const storedNodes = async () => {
      const keys = new Set<string>();
      for await (const [key] of kv.iterate(bucketRange(Bucket.StateNode))) keys.add(bytesToHex(key.subarray(1)));
      return keys;
    };
    const base = await baseState(made);
    await commit();
    const before = await storedNodes();

    const holders = Array.from({ length: 100 }, (_, n) => new Address(setLengthLeft(new Uint8Array([0xe0, n]), 20)));
    const state = stateManagerAt(made, common, base, { trieNodes: 100, entries: 1_000 });
    await state.checkpoint();
    for (const [n, address] of holders.entries()) await state.putAccount(address, new Account(0n, BigInt(n + 1)));
    for (let n = 3; n <= 30; n++) await state.putStorage(contract, slot(n), new Uint8Array([n]));
    await state.commit();
    const root = await state.getStateRoot();
    const written = await commit();
    const added = [...(await storedNodes())].filter((key) => !before.has(key));
    expect(added).to.not.be.empty;
    const held = await nodesHeldBy(kv, root);
    expect(
      added.filter((key) => !held.has(key)),
      'stored nodes of no state',
    ).to.deep.equal([]);
    // Nodes read during the block's checkpoint, which ethereumjs writes back at its end, are not written again.
    expect(written).to.equal(added.length);

    const fresh = stateManagerAt(new TrieNodeStore(kv), common, root);
    for (const [n, address] of holders.entries())
      expect((await fresh.getAccount(address))?.balance).to.equal(BigInt(n + 1));
    expect((await fresh.getAccount(holder))?.balance).to.equal(5n);
    expect(bytesToHex(await fresh.getCode(contract))).to.equal(bytesToHex(code));
    expect(bytesToHex(await fresh.getStorage(contract, slot(1)))).to.equal('0x11');
    for (let n = 3; n <= 30; n++) expect(await fresh.getStorage(contract, slot(n))).to.deep.equal(new Uint8Array([n]));
  });

  it('stores every node a trie holds whatever its shape: extensions, and nodes small enough to sit inside their parent', async () => {
    const kv = new MemoryStore();
    const nodes = new TrieNodeStore(kv);
    // Unhashed keys sharing long prefixes and one-byte values: extensions, and leaves under 32
    // bytes, which their branch holds in itself instead of by hash.
    const trie = new MerklePatriciaTrie({ db: nodes, useKeyHashing: false });
    const entries = Array.from({ length: 40 }, (_, n) => [Uint8Array.of(0xab, 0xcd, n >> 3, n), Uint8Array.of(n + 1)]);
    for (const [key, value] of entries) await trie.put(key!, value!);
    await commitBlock(kv, nodes);
    const stored: NestedUint8Array[] = [];
    for await (const [, value] of kv.iterate(bucketRange(Bucket.StateNode)))
      stored.push(RLP.decode(value) as NestedUint8Array);
    const isExtension = (node: NestedUint8Array) => node.length === 2 && (node[0] as Uint8Array)[0]! >> 4 < 2;
    expect(stored.some(isExtension)).to.equal(true);
    expect(stored.some((node) => node.length === 17 && node.some((child) => Array.isArray(child)))).to.equal(true);

    const fresh = new MerklePatriciaTrie({ db: new TrieNodeStore(kv), root: trie.root(), useKeyHashing: false });
    for (const [key, value] of entries) expect(await fresh.get(key!)).to.deep.equal(value);
  });

  it('keeps the trie nodes blocks stored readable from memory, not only the last few blocks', async () => {
    const kv = new CountingReads();
    const nodes = new TrieNodeStore(kv);
    const commit = () => commitBlock(kv, nodes);
    let root = await baseState(nodes);
    await commit();
    const holders = Array.from({ length: 12 }, (_, n) => new Address(setLengthLeft(new Uint8Array([0xe1, n]), 20)));
    for (const [n, address] of holders.entries()) {
      const block = stateManagerAt(nodes, common, root);
      await block.putAccount(address, new Account(0n, BigInt(n + 1)));
      root = await block.getStateRoot();
      await commit();
    }

    kv.gets = 0;
    const head = stateManagerAt(nodes, common, root);
    for (const [n, address] of holders.entries())
      expect((await head.getAccount(address))?.balance).to.equal(BigInt(n + 1));
    expect((await head.getAccount(holder))?.balance).to.equal(5n);
    expect(bytesToHex(await head.getStorage(contract, slot(2)))).to.equal('0x22');
    expect(kv.gets, 'reads that reached the database').to.equal(0);
  });
});

/** The hashes of the stored trie nodes the state at `root` holds, its storage tries' included. */
async function nodesHeldBy(kv: MemoryStore, root: Uint8Array): Promise<Set<string>> {
  const held = new Set<string>();
  const walk = async (trieRoot: Uint8Array, accounts: boolean) => {
    const trie = new MerklePatriciaTrie({ db: new TrieNodeStore(kv), useKeyHashing: true, root: trieRoot });
    const storageRoots: Uint8Array[] = [];
    await trie.walkTrie(trieRoot, (reference, node, _key, controller) => {
      if (reference instanceof Uint8Array && reference.length === 32) held.add(bytesToHex(reference));
      if (accounts && node instanceof LeafMPTNode) {
        const { storageRoot } = createAccountFromRLP(node.value());
        if (bytesToHex(storageRoot) !== bytesToHex(trie.EMPTY_TRIE_ROOT)) storageRoots.push(storageRoot);
      }
      controller.allChildren(node!);
    });
    for (const storageRoot of storageRoots) await walk(storageRoot, false);
  };
  await walk(root, true);
  return held;
}

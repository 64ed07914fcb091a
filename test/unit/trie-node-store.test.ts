import { expect } from 'chai';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { Bucket, bucketKey, MemoryStore } from '@evmnode/core';
import { TrieNodeStore } from '@evmnode/core/internal';
import { CountingReads } from '../support/counting-store.js';

const hash = (n: number): Uint8Array => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`);
const node = (n: number): Uint8Array => hexToBytes(`0xc${n}`);
const read = async (nodes: TrieNodeStore, n: number): Promise<string | undefined> => {
  const value = await nodes.get(hash(n));
  return value === undefined ? undefined : bytesToHex(value as Uint8Array);
};
const storedKeys = (kv: MemoryStore, batchKeys: number[]): Promise<(Uint8Array | undefined)[]> =>
  Promise.all(batchKeys.map((n) => kv.get(bucketKey(Bucket.StateNode, hash(n)))));

// A follower executes a block while the block before it is written: the node store keeps each
// block's nodes apart, readable until their batch's outcome is known.
describe('TrieNodeStore: blocks written while the next executes', () => {
  it("reads a block's nodes while its batch is written, and caches them once it is", async () => {
    const kv = new MemoryStore();
    const nodes = new TrieNodeStore(kv);
    await nodes.put(hash(1), node(1));
    const batch = kv.batch();
    const first = nodes.moveInto(batch, batch);
    expect(batch.length).to.equal(1);
    // The next block's writes go to a batch of their own.
    await nodes.put(hash(2), node(2));
    expect(await read(nodes, 1)).to.equal('0xc1');
    await batch.write();
    nodes.written(first);
    expect(await read(nodes, 1)).to.equal('0xc1');
    const next = kv.batch();
    const second = nodes.moveInto(next, next);
    expect(next.length).to.equal(1);
    await next.write();
    nodes.written(second);
    expect((await storedKeys(kv, [1, 2])).map((value) => value && bytesToHex(value))).to.deep.equal(['0xc1', '0xc2']);
  });

  it('puts stored nodes in one batch and deletions in the other', async () => {
    const kv = new MemoryStore();
    const nodes = new TrieNodeStore(kv);
    await nodes.put(hash(1), node(1));
    await nodes.del(hash(2));
    const puts = kv.batch();
    const deletions = kv.batch();
    nodes.moveInto(puts, deletions);
    expect([puts.length, deletions.length]).to.deep.equal([1, 1]);
  });

  it('does not store again a node in a batch being written', async () => {
    const kv = new MemoryStore();
    const nodes = new TrieNodeStore(kv);
    await nodes.put(hash(1), node(1));
    const writing = kv.batch();
    nodes.moveInto(writing, writing);
    // ethereumjs writes back the nodes a block read: this one is on its way to the store.
    await nodes.put(hash(1), node(1));
    await nodes.put(hash(3), node(3));
    const next = kv.batch();
    nodes.moveInto(next, next);
    expect(next.length).to.equal(1);
  });

  it("forgets a block's nodes when its batch fails", async () => {
    const kv = new MemoryStore();
    const nodes = new TrieNodeStore(kv);
    await nodes.put(hash(1), node(1));
    const batch = kv.batch();
    const failed = nodes.moveInto(batch, batch);
    await nodes.put(hash(2), node(2));
    nodes.notWritten(failed);
    expect(await read(nodes, 1)).to.equal(undefined);
    // The block built on it is discarded too, by the block producer.
    nodes.discardPending();
    expect(await read(nodes, 2)).to.equal(undefined);
    expect(await storedKeys(kv, [1, 2])).to.deep.equal([undefined, undefined]);
  });
});

/** Stores `values` (node number to node) as a block's written batch: they end up in the node cache. */
async function writeBlock(kv: MemoryStore, nodes: TrieNodeStore, values: Map<number, Uint8Array>): Promise<void> {
  for (const [n, value] of values) await nodes.put(hash(n), value);
  const batch = kv.batch();
  const writes = nodes.moveInto(batch, batch);
  await batch.write();
  nodes.written(writes);
}

// Block replays walk older states: their nodes must not push out those the blocks at the head walk.
describe('TrieNodeStore: the replay view', () => {
  it('reads what only the database holds without adding it to the cache', async () => {
    const kv = new CountingReads();
    const nodes = new TrieNodeStore(kv);
    const stored = kv.batch();
    stored.put(bucketKey(Bucket.StateNode, hash(1)), node(1));
    await stored.write();
    const view = nodes.replayView();

    expect(bytesToHex((await view.get(hash(1))) as Uint8Array)).to.equal('0xc1');
    expect(bytesToHex((await view.get(hash(1))) as Uint8Array)).to.equal('0xc1');
    expect(kv.gets).to.equal(2);
    expect(await read(nodes, 1)).to.equal('0xc1');
    expect(await read(nodes, 1)).to.equal('0xc1');
    expect(kv.gets).to.equal(3);
  });

  it('reads cached and pending nodes, and does not keep a node cached by reading it', async () => {
    // 4 KB nodes: 1,100 of them are more than the cache's 4 MB.
    const large = (n: number) => new Uint8Array(4096).fill(n % 251);
    for (const reader of ['replay view', 'get'] as const) {
      const kv = new CountingReads();
      const nodes = new TrieNodeStore(kv);
      const view = nodes.replayView();
      const readOnce = (n: number) => (reader === 'get' ? nodes.get(hash(n)) : view.get(hash(n)));
      await writeBlock(kv, nodes, new Map([[0, node(0)]]));
      for (let block = 0; block < 11; block++) {
        await readOnce(0);
        const values = new Map(Array.from({ length: 100 }, (_, index) => [1 + block * 100 + index, large(index)]));
        await writeBlock(kv, nodes, values);
      }
      await nodes.put(hash(5000), node(5));
      expect(await view.get(hash(5000)), 'a pending node').to.deep.equal(node(5));
      expect(await view.get(hash(1100)), 'a cached node').to.deep.equal(large(99));
      expect(kv.gets).to.equal(0);
      // Read through the view, the first node aged out of the cache; through `get`, it stayed.
      expect(await read(nodes, 0)).to.equal('0xc0');
      expect(kv.gets, reader).to.equal(reader === 'get' ? 0 : 1);
    }
  });
});

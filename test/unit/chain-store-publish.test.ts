import { expect } from 'chai';
import { bytesToHex, hexToBytes, KECCAK256_RLP_S } from '@ethereumjs/util';
import { Bucket, bucketKey, Database, EventLoopTurns, type BlockRecord, type ReceiptRecord } from '@evmnode/core';
import { ChainStore, TrieNodeStore, type StoredNativeTx } from '@evmnode/core/internal';
import { countTurns } from '../support/turn-counter.js';

const hash = (tag: number, n: number) =>
  `0x${tag.toString(16).padStart(2, '0')}${n.toString(16).padStart(62, '0')}` as const;
const [BLOCK, EVM_TX, WRAPPER, NATIVE_TX] = [1, 2, 3, 4];

/** The hash of the EVM transaction at `index` of block `height`. */
const evmTxHash = (height: number, index = 0) => hash(EVM_TX, height * 100_000 + index);

/**
 * Block `height` with `evmTransactions` EVM transactions (each wrapped in a native one) and one
 * native transaction.
 */
function committedBlock(height: number, evmTransactions = 1) {
  const indexes = Array.from({ length: evmTransactions }, (_, index) => index);
  const block = {
    hash: hash(BLOCK, height),
    height,
    transactions: indexes.map((index) => evmTxHash(height, index)),
    nativeTransactions: [hash(NATIVE_TX, height)],
    stateRoot: KECCAK256_RLP_S,
  } as unknown as BlockRecord;
  const receipts = indexes.map(
    (index) =>
      ({ transactionHash: evmTxHash(height, index), transactionIndex: index, logs: [] }) as unknown as ReceiptRecord,
  );
  const native = { hash: hash(NATIVE_TX, height), height, index: 0 } as unknown as StoredNativeTx;
  return {
    block,
    receipts,
    rawTransactions: indexes.map((index) => Uint8Array.of(height, index)),
    nativeHashes: indexes.map((index) => hexToBytes(hash(WRAPPER, height * 100_000 + index))),
    nativeTransactions: [native],
    syntheticTransactions: [],
  };
}

/** What reads by height and by hash find of block `height`, as present or not. */
async function found(store: ChainStore, height: number) {
  const evmTx = evmTxHash(height);
  return {
    block: (await store.blockAt(height)) !== undefined,
    blockHash: (await store.heightOf(hash(BLOCK, height))) === height,
    transaction: (await store.locationOf(evmTx)) !== undefined,
    wrapper: (await store.nativeHashOf(evmTx)) !== undefined,
    evmHashOfWrapper: (await store.evmHashOfNative(hexToBytes(hash(WRAPPER, height * 100_000)))) === evmTx,
    nativeTransaction: (await store.nativeTransaction(hexToBytes(hash(NATIVE_TX, height))))?.height === height,
  };
}

const everything = {
  block: true,
  blockHash: true,
  transaction: true,
  wrapper: true,
  evmHashOfWrapper: true,
  nativeTransaction: true,
};
const nothing = Object.fromEntries(Object.keys(everything).map((read) => [read, false]));

describe('chain store: a committed block is found only once published', () => {
  it('hides a written block from reads by height and by hash until its publication, and keeps showing the ones before', async () => {
    const database = await Database.inMemory();
    const store = new ChainStore(database);
    const nodes = new TrieNodeStore(database.store);
    const first = committedBlock(1);
    await store.commit(first, nodes);
    store.publish(first);
    expect(await found(store, 1)).to.deep.equal(everything);

    // Written, as the block producer holds a block committed before its time.
    const second = committedBlock(2);
    await store.commit(second, nodes);
    expect(await store.headHeight(), 'the database head').to.equal(2);
    expect(await found(store, 2)).to.deep.equal(nothing);
    expect(await found(store, 1)).to.deep.equal(everything);

    store.publish(second);
    expect(await found(store, 2)).to.deep.equal(everything);
    expect(bytesToHex((await store.nativeHashOf(evmTxHash(2)))!)).to.equal(hash(WRAPPER, 200_000));
  });
});

describe("chain store: a large block's write batch", () => {
  it('is filled in turns of the event loop, with every transaction and only the trie nodes made before it', async () => {
    const database = await Database.inMemory();
    const store = new ChainStore(database);
    const nodes = new TrieNodeStore(database.store);
    const nodeHash = (n: number) => hexToBytes(hash(5, n));
    await nodes.put(nodeHash(1), Uint8Array.of(0xc1));
    const block = committedBlock(1, 300);
    const turns = countTurns();
    // Meanwhile the next block executes (a follower's pipeline) and makes a trie node of its own.
    setImmediate(() => void nodes.put(nodeHash(2), Uint8Array.of(0xc2)));
    // A turn at every chance the commit gives.
    await store.commit(block, nodes, new EventLoopTurns(0));
    expect(turns.stop(), 'a turn after each transaction').to.be.at.least(300);
    store.publish(block);
    const locations = await Promise.all(block.receipts.map((receipt) => store.locationOf(receipt.transactionHash)));
    expect(locations).to.deep.equal(block.receipts.map((_, index) => ({ height: 1, index })));
    const storedNode = (n: number) => database.store.get(bucketKey(Bucket.StateNode, nodeHash(n)));
    expect(await storedNode(1)).to.deep.equal(Uint8Array.of(0xc1));
    expect(await storedNode(2), "the next block's node").to.equal(undefined);
    const next = database.store.batch();
    nodes.moveInto(next, next);
    expect(next.length, "the next block's batch").to.equal(1);
  });
});

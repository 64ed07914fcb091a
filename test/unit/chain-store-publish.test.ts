import { expect } from 'chai';
import { bytesToHex, hexToBytes, KECCAK256_RLP_S } from '@ethereumjs/util';
import { Database, type BlockRecord, type ReceiptRecord } from '@evmnode/core';
import { ChainStore, TrieNodeStore, type StoredNativeTx } from '@evmnode/core/internal';

const hash = (tag: number, n: number) =>
  `0x${tag.toString(16).padStart(2, '0')}${n.toString(16).padStart(62, '0')}` as const;
const [BLOCK, EVM_TX, WRAPPER, NATIVE_TX] = [1, 2, 3, 4];

/** Block `height` with one EVM transaction (wrapped in a native one) and one native transaction. */
function committedBlock(height: number) {
  const block = {
    hash: hash(BLOCK, height),
    height,
    transactions: [hash(EVM_TX, height)],
    nativeTransactions: [hash(NATIVE_TX, height)],
    stateRoot: KECCAK256_RLP_S,
  } as unknown as BlockRecord;
  const receipt = { transactionHash: hash(EVM_TX, height), transactionIndex: 0, logs: [] } as unknown as ReceiptRecord;
  const native = { hash: hash(NATIVE_TX, height), height, index: 0 } as unknown as StoredNativeTx;
  return {
    block,
    receipts: [receipt],
    rawTransactions: [Uint8Array.of(height)],
    nativeHashes: [hexToBytes(hash(WRAPPER, height))],
    nativeTransactions: [native],
    syntheticTransactions: [],
  };
}

/** What reads by height and by hash find of block `height`, as present or not. */
async function found(store: ChainStore, height: number) {
  const evmTx = hash(EVM_TX, height);
  return {
    block: (await store.blockAt(height)) !== undefined,
    blockHash: (await store.heightOf(hash(BLOCK, height))) === height,
    transaction: (await store.locationOf(evmTx)) !== undefined,
    wrapper: (await store.nativeHashOf(evmTx)) !== undefined,
    evmHashOfWrapper: (await store.evmHashOfNative(hexToBytes(hash(WRAPPER, height)))) === evmTx,
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
    expect(bytesToHex((await store.nativeHashOf(hash(EVM_TX, 2)))!)).to.equal(hash(WRAPPER, 2));
  });
});

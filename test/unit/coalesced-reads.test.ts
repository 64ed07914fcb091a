import { expect } from 'chai';
import { MemoryStore } from '@evmnode/core';
import { CoalescedReads } from '@evmnode/core/internal';

const key = (n: number): Uint8Array => Uint8Array.of(n >> 8, n & 255);
const value = (n: number): Uint8Array => Uint8Array.of(0xc0, n & 255);

/** A store holding keys 0..stored-1, recording the keys of every `getMany` it is asked. */
function countingStore(stored: number) {
  const memory = new MemoryStore();
  const calls: number[][] = [];
  const ready = Promise.all(Array.from({ length: stored }, (_, n) => memory.put(key(n), value(n))));
  let failNext = false;
  const store = {
    async getMany(keys: readonly Uint8Array[]) {
      calls.push(keys.map(([high, low]) => (high! << 8) | low!));
      if (failNext) {
        failNext = false;
        throw new Error('read failed');
      }
      return memory.getMany(keys);
    },
  };
  return { store, calls, ready, failNext: () => (failNext = true) };
}

const asNumbers = (values: (Uint8Array | undefined)[]) => values.map((bytes) => bytes?.[1]);

describe('CoalescedReads: point reads of one burst read together', () => {
  it('reads the keys asked in one burst with one getMany, each answered with its own value', async () => {
    const { store, calls, ready } = countingStore(8);
    await ready;
    const reads = new CoalescedReads(store);
    const values = await Promise.all([3, 9, 0, 7].map((n) => reads.get(key(n))));
    expect(asNumbers(values)).to.deep.equal([3, undefined, 0, 7]);
    expect(calls).to.deep.equal([[3, 9, 0, 7]]);
  });

  it('takes into the burst the reads of walks many microtasks behind', async () => {
    const { store, calls, ready } = countingStore(8);
    await ready;
    const reads = new CoalescedReads(store);
    const behind = async (n: number, hops: number) => {
      for (let hop = 0; hop < hops; hop++) await Promise.resolve();
      return reads.get(key(n));
    };
    const values = await Promise.all([behind(1, 0), behind(2, 3), behind(4, 60)]);
    expect(asNumbers(values)).to.deep.equal([1, 2, 4]);
    expect(calls).to.deep.equal([[1, 2, 4]]);
  });

  it('splits a large burst among the reader threads, in order', async () => {
    const { store, calls, ready } = countingStore(200);
    await ready;
    const reads = new CoalescedReads(store);
    const values = await Promise.all(Array.from({ length: 200 }, (_, n) => reads.get(key(n))));
    expect(asNumbers(values)).to.deep.equal(Array.from({ length: 200 }, (_, n) => n));
    expect(calls.map((keys) => keys.length)).to.deep.equal([50, 50, 50, 50]);
    expect(calls.flat()).to.deep.equal(Array.from({ length: 200 }, (_, n) => n));
  });

  it('starts a new burst for a read made once the one before was sent', async () => {
    const { store, calls, ready } = countingStore(8);
    await ready;
    const reads = new CoalescedReads(store);
    const first = reads.get(key(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(asNumbers([await reads.get(key(2)), await first])).to.deep.equal([2, 1]);
    expect(calls).to.deep.equal([[1], [2]]);
  });

  it('fails every read of a failed getMany, and reads again afterwards', async () => {
    const { store, calls, ready, failNext } = countingStore(8);
    await ready;
    const reads = new CoalescedReads(store);
    failNext();
    const failed = await Promise.allSettled([reads.get(key(1)), reads.get(key(2))]);
    expect(failed.map((outcome) => outcome.status)).to.deep.equal(['rejected', 'rejected']);
    expect(asNumbers([await reads.get(key(1))])).to.deep.equal([1]);
    expect(calls).to.deep.equal([[1, 2], [1]]);
  });
});

import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { NativePool } from '@evmnode/core/internal';

describe('the native pool', () => {
  const signer = { text: 'sei1signer', bytes: new Uint8Array(20).fill(7) };
  /** What the pool reads of a native transaction of `bytes` bytes: its bytes, hash and signer. */
  const transaction = (bytes: number) =>
    ({ raw: new Uint8Array(bytes), hash: randomBytes(32), signer }) as unknown as Parameters<NativePool['add']>[0];

  it('counts its room in 32 KB slots, as the EVM pool does, and gets it back as transactions leave', () => {
    const pool = new NativePool(6);
    const large = transaction(100 * 1024);
    pool.add(large);
    pool.add(transaction(32 * 1024));
    // Four slots and one: a second slot's transaction would pass six.
    expect(pool.wouldOverflow(new Uint8Array(300))).to.equal(false);
    expect(pool.wouldOverflow(new Uint8Array(32 * 1024 + 1))).to.equal(true);
    pool.remove([`0x${Buffer.from(large.hash).toString('hex')}`]);
    expect(pool.wouldOverflow(new Uint8Array(128 * 1024))).to.equal(false);
    expect([pool.size, pool.pendingCount(signer.bytes)]).to.deep.equal([1, 1n]);
  });
});

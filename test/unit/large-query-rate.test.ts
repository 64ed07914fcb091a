import { expect } from 'chai';
import { LargeQueryRate } from '@evmnode/core/internal';

describe('the rate of large log queries', () => {
  /** How many of `count` tokens `client` gets, asked back to back. */
  const takes = (rate: LargeQueryRate, client: string | undefined, count: number) =>
    Array.from({ length: count }, () => rate.tryTake(client)).filter(Boolean).length;

  it("gives each client its share of the node's rate, and the node no more than its own", () => {
    // 30 a second on the node, a quarter of it (rounded up) a client.
    const rate = new LargeQueryRate(30, 0.25);
    expect(takes(rate, 'a', 10)).to.equal(8);
    expect(takes(rate, 'b', 10)).to.equal(8);
    expect(takes(rate, 'c', 10)).to.equal(8);
    // 6 left on the node: the fourth client's share is cut to them.
    expect(takes(rate, 'd', 10)).to.equal(6);
  });

  it("leaves only the node's rate with a share of 1, or for queries that name no client", () => {
    expect(takes(new LargeQueryRate(30, 1), 'a', 40)).to.equal(30);
    expect(takes(new LargeQueryRate(30, 0.25), undefined, 40)).to.equal(30);
  });
});

import { expect } from 'chai';
import { PriorityQueue } from '@evmnode/core/internal';

describe('the priority queue of block selection', () => {
  it('pops in the order of its comparison while items are pushed between pops', () => {
    // Tip first, highest first, then arrival: the order block selection asks for.
    type Head = { readonly tip: bigint; readonly arrival: number };
    const before = (a: Head, b: Head) => (a.tip !== b.tip ? a.tip > b.tip : a.arrival < b.arrival);
    const queue = new PriorityQueue<Head>(before);
    let seed = 11;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const held: Head[] = [];
    const popped: Head[] = [];
    let arrival = 0;
    for (let step = 0; step < 3_000; step++) {
      if (random(3) > 0) {
        const head = { tip: BigInt(random(50)), arrival: arrival++ };
        queue.push(head);
        held.push(head);
      } else {
        held.sort((a, b) => (before(a, b) ? -1 : 1));
        const next = queue.pop();
        expect(next).to.equal(held.shift());
        if (next !== undefined) popped.push(next);
      }
    }
    held.sort((a, b) => (before(a, b) ? -1 : 1));
    const rest: Head[] = [];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) rest.push(next);
    expect(rest).to.deep.equal(held);
    expect(popped.length + rest.length).to.equal(arrival);
  });
});

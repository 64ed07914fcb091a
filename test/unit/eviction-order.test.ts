import { expect } from 'chai';
import { EvictionOrder } from '@evmnode/core/internal';

type Sender = `0x${string}`;
type Last = ReturnType<ConstructorParameters<typeof EvictionOrder>[0]>;

/** A pooled transaction as the order reads it: its fee fields. */
const lastPaying = (feeCap: bigint, tipCap: bigint) =>
  ({ tx: { maxFeePerGas: feeCap, maxPriorityFeePerGas: tipCap } }) as unknown as Last;

/** geth's eviction price at `baseFee`, restated: effective tip, then fee cap, then tip cap. */
function priceKey(last: Last, baseFee: bigint): bigint[] {
  const { maxFeePerGas, maxPriorityFeePerGas } = last.tx as unknown as Record<string, bigint>;
  const capLeft = maxFeePerGas! - baseFee;
  return [maxPriorityFeePerGas! < capLeft ? maxPriorityFeePerGas! : capLeft, maxFeePerGas!, maxPriorityFeePerGas!];
}

const cheaper = (a: bigint[], b: bigint[]): boolean => {
  const at = a.findIndex((value, index) => value !== b[index]);
  return at !== -1 && a[at]! < b[at]!;
};

describe('the order a full pool evicts in', () => {
  it('always offers the sender whose last transaction pays least, through changes, departures and base fees', () => {
    const lasts = new Map<Sender, Last>();
    const order = new EvictionOrder(
      (sender) => lasts.get(sender)!,
      () => lasts.keys(),
    );
    // A fixed sequence of pseudo-random numbers, so that a failure repeats.
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    // Prices spread wide, so that the cheapest is one sender and not one of many that tie.
    const setLast = (sender: Sender, below = 10_000_000) => {
      lasts.set(sender, lastPaying(BigInt(random(below)) + 1_000_000n, BigInt(random(below))));
      order.changed(sender);
    };
    for (let index = 0; index < 2_000; index++) setLast(`0x${index.toString(16).padStart(40, '0')}`);
    let baseFee = 2_000_000n;
    for (let step = 0; step < 5_000; step++) {
      const senders = [...lasts.keys()];
      const sender = senders[random(senders.length)]!;
      const action = random(10);
      if (action < 3) setLast(sender);
      // Made the cheapest, most likely.
      else if (action < 4) setLast(sender, 10_000);
      else if (action < 6) {
        lasts.delete(sender);
        order.changed(sender);
      } else if (action < 7) setLast(`0x${(10_000 + step).toString(16).padStart(40, '0')}`);
      else if (action < 8) baseFee = BigInt(1_000_000 + random(4_000_000));
      const best = (among: readonly Sender[]) =>
        among.reduce((a, b) => (cheaper(priceKey(lasts.get(b)!, baseFee), priceKey(lasts.get(a)!, baseFee)) ? b : a));
      // A sender passed over, as the pool passes the newcomer's own and those it already takes
      // from, which are often the cheapest.
      const passed = random(2) === 0 ? best([...lasts.keys()]) : senders[random(senders.length)]!;
      const offered = [...order.candidates(baseFee, (candidate) => candidate === passed)].filter(
        (candidate) => lasts.has(candidate) && candidate !== passed,
      );
      const everyone = [...lasts.keys()].filter((candidate) => candidate !== passed);
      expect(priceKey(lasts.get(best(offered))!, baseFee)).to.deep.equal(priceKey(lasts.get(best(everyone))!, baseFee));
      // Few are offered: the changed ones since the last sort, and one more.
      expect(offered.length).to.be.at.most(258);
    }
  });
});

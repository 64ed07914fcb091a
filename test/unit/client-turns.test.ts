import { setImmediate as nextIteration } from 'node:timers/promises';
import { expect } from 'chai';
import { ClientTurns } from '@evmnode/core/internal';

/** Holds the thread for `ms`, as a request's own work does. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('client turns of the node thread', () => {
  it('lets work go at once while the stretch has room and nobody waits', async () => {
    const turns = new ClientTurns(5);
    expect(turns.take('203.0.113.1')).to.equal(undefined);
    expect(turns.take('203.0.113.2')).to.equal(undefined);
    hold(6);
    expect(turns.take('203.0.113.1')).to.be.instanceOf(Promise);
    // The stretch ends after I/O; the next one starts with room again.
    await nextIteration();
    await nextIteration();
    expect(turns.take('203.0.113.2')).to.equal(undefined);
  });

  it("once a stretch has run its length, serves waiting clients in turn, each one's work under way before its new requests", async () => {
    const turns = new ClientTurns(5);
    expect(turns.take('a')).to.equal(undefined);
    hold(6);
    const served: string[] = [];
    const waiting = [
      turns.take('a')!.then(() => served.push('a: request 1')),
      turns.take('a')!.then(() => served.push('a: request 2')),
      turns.take('a', true)!.then(() => served.push('a: batch under way')),
      turns.take('b')!.then(() => served.push('b: request')),
      turns.take('c')!.then(() => served.push('c: request')),
    ];
    await Promise.all(waiting);
    expect(served).to.deep.equal(['a: batch under way', 'b: request', 'c: request', 'a: request 1', 'a: request 2']);
  });

  it('serves about a stretch of waiting work per iteration of the event loop, timers and I/O between', async () => {
    const turns = new ClientTurns(5);
    expect(turns.take('a')).to.equal(undefined);
    hold(6);
    let timerFires = 0;
    const ticking = setInterval(() => timerFires++, 1);
    // Nine pieces of 3 ms of work from three clients: 27 ms, two or three to a stretch of 5 ms.
    const seenByEach: number[] = [];
    const waiting = Array.from({ length: 9 }, (_, index) =>
      turns.take(`client ${index % 3}`)!.then(() => {
        seenByEach.push(timerFires);
        hold(3);
      }),
    );
    await Promise.all(waiting);
    clearInterval(ticking);
    const perIteration = [...new Set(seenByEach)].map((fires) => seenByEach.filter((seen) => seen === fires).length);
    expect(perIteration.length, `timer fires seen: ${seenByEach.join(',')}`).to.be.at.least(3);
    for (const count of perIteration) expect(count).to.be.at.most(3);
  });

  it('counts the stretches that end, so that work that let the thread go asks for a turn again', async () => {
    const turns = new ClientTurns(5);
    const before = turns.stretchesEnded;
    expect(turns.take('a')).to.equal(undefined);
    expect(turns.stretchesEnded).to.equal(before);
    await nextIteration();
    expect(turns.stretchesEnded).to.equal(before + 1);
  });
});

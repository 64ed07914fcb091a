import { expect } from 'chai';
import { FRESH_ANSWER_MS, HeldAnswers } from '@evmnode/core';

/** A ledger on a clock of the test's, and a way to let its answers grow stale. */
function ledger(limit: number): { held: HeldAnswers; wait: () => void } {
  let now = 0;
  return { held: new HeldAnswers(limit, () => now), wait: () => (now += FRESH_ANSWER_MS) };
}

describe('answers held for clients', () => {
  it('closes the connections holding the most unread, largest first, until the rest fits', () => {
    const { held, wait } = ledger(100);
    const closed: string[] = [];
    const [a, b, c] = [{}, {}, {}];
    held.hold(a, 30, () => closed.push('a'));
    held.hold(b, 20, () => closed.push('b'));
    held.hold(b, 20, () => closed.push('b'));
    wait();
    // b holds 40 over two answers, a 30 and c 35: 105 passes 100, and b holds the most.
    held.hold(c, 35, () => closed.push('c'));
    expect(closed).to.deep.equal(['b']);
    expect(held.total).to.equal(65);
  });

  it('closes no connection whose answer was just written: the total passes the limit until it is read', () => {
    const { held, wait } = ledger(100);
    const closed: string[] = [];
    held.hold({}, 70, () => closed.push('reading'));
    held.hold({}, 50, () => closed.push('just written'));
    expect(closed).to.deep.equal([]);
    expect(held.total).to.equal(120);
    // Nothing more is gathered meanwhile.
    expect(held.take(1)).to.equal(false);
    wait();
    held.hold({}, 10, () => closed.push('newest'));
    expect(closed).to.deep.equal(['reading']);
    expect(held.total).to.equal(60);
  });

  it('closes connections however fresh their answers once the total passes twice the limit', () => {
    const { held } = ledger(100);
    const closed: string[] = [];
    held.hold({}, 90, () => closed.push('first'));
    held.hold({}, 60, () => closed.push('second'));
    expect(closed).to.deep.equal([]);
    // 230 passes 200: the largest is closed, and the rest, within twice the limit, is spared.
    held.hold({}, 80, () => closed.push('third'));
    expect(closed).to.deep.equal(['first']);
    expect(held.total).to.equal(140);
  });

  it('counts an answer until it is written, once however often its release is called', () => {
    const { held } = ledger(100);
    const release = held.hold({}, 60, () => {});
    release();
    release();
    expect(held.total).to.equal(0);
  });

  it('ignores the releases of a connection it closed: its bytes went with it', () => {
    const { held, wait } = ledger(100);
    const first = {};
    const releaseFirst = held.hold(first, 70, () => {});
    wait();
    held.hold({}, 50, () => {});
    expect(held.total).to.equal(50);
    releaseFirst();
    expect(held.total).to.equal(50);
  });

  it('gives a batch room by closing connections that left answers unread, and refuses it when nothing is left to close', () => {
    const { held, wait } = ledger(100);
    let closed = 0;
    held.hold({}, 60, () => closed++);
    expect(held.take(30)).to.equal(true);
    expect(closed).to.equal(0);
    // An answer just written is not yet a sign that its client does not read.
    expect(held.take(30)).to.equal(false);
    wait();
    expect(held.take(30)).to.equal(true);
    expect(closed).to.equal(1);
    expect(held.take(50)).to.equal(false);
    held.give(60);
    expect(held.total).to.equal(0);
  });
});

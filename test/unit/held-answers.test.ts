import { expect } from 'chai';
import { HeldAnswers } from '@evmnode/core';

describe('answers held for clients', () => {
  it('closes the connections holding the most unread, largest first, until the rest fits', () => {
    const held = new HeldAnswers(100);
    const closed: string[] = [];
    const [a, b, c] = [{}, {}, {}];
    held.hold(a, 30, () => closed.push('a'));
    held.hold(b, 20, () => closed.push('b'));
    held.hold(b, 20, () => closed.push('b'));
    // b holds 40 over two answers, a 30 and c 35: 105 passes 100, and b holds the most.
    held.hold(c, 35, () => closed.push('c'));
    expect(closed).to.deep.equal(['b']);
    expect(held.total).to.equal(65);
  });

  it('counts an answer until it is written, once however often its release is called', () => {
    const held = new HeldAnswers(100);
    const release = held.hold({}, 60, () => {});
    release();
    release();
    expect(held.total).to.equal(0);
  });

  it('ignores the releases of a connection it closed: its bytes went with it', () => {
    const held = new HeldAnswers(100);
    const first = {};
    const releaseFirst = held.hold(first, 70, () => {});
    held.hold({}, 50, () => {});
    expect(held.total).to.equal(50);
    releaseFirst();
    expect(held.total).to.equal(50);
  });

  it('gives a batch room by closing unread connections, and refuses it when nothing is left to close', () => {
    const held = new HeldAnswers(100);
    let closed = 0;
    held.hold({}, 60, () => closed++);
    expect(held.take(30)).to.equal(true);
    expect(closed).to.equal(0);
    expect(held.take(30)).to.equal(true);
    expect(closed).to.equal(1);
    expect(held.take(50)).to.equal(false);
    held.give(60);
    expect(held.total).to.equal(0);
  });
});

import { expect } from 'chai';
import { UnfinishedRequests } from '@evmnode/core';

describe('requests being received', () => {
  it('closes the connections whose requests have waited longest until the rest fits, the newest included', () => {
    const unfinished = new UnfinishedRequests(100);
    const closed: string[] = [];
    const [a, b, c] = [{}, {}, {}];
    unfinished.receive(a, 40, () => closed.push('a'));
    unfinished.receive(b, 40, () => closed.push('b'));
    unfinished.receive(a, 10, () => closed.push('a'));
    // 130 passes 100: a began first.
    unfinished.receive(c, 40, () => closed.push('c'));
    expect(closed).to.deep.equal(['a']);
    expect(unfinished.total).to.equal(80);
    // Alone past the limit, a request is closed itself.
    unfinished.receive({}, 200, () => closed.push('huge'));
    expect(closed).to.deep.equal(['a', 'b', 'c', 'huge']);
    expect(unfinished.total).to.equal(0);
  });

  it('counts a request until it is whole; its next one waits from when it begins', () => {
    const unfinished = new UnfinishedRequests(100);
    const closed: string[] = [];
    const [a, b] = [{}, {}];
    unfinished.receive(a, 30, () => closed.push('a'));
    unfinished.receive(b, 30, () => closed.push('b'));
    unfinished.finish(a);
    unfinished.finish(a);
    expect(unfinished.total).to.equal(30);
    // a's next request began after b's.
    unfinished.receive(a, 50, () => closed.push('a'));
    unfinished.receive(b, 30, () => closed.push('b'));
    expect(closed).to.deep.equal(['b']);
    expect(unfinished.total).to.equal(50);
  });
});

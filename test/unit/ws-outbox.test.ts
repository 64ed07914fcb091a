import { expect } from 'chai';
import { WsOutbox } from '@evmnode/core/internal';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An outbox whose releases and time-outs the test reads. */
function outbox(timeoutMs: number): { box: WsOutbox<string>; written: [string, number][]; timedOut: () => number } {
  const written: [string, number][] = [];
  let timeouts = 0;
  const box = new WsOutbox<string>(
    timeoutMs,
    (held, bytes) => written.push([held, bytes]),
    () => (timeouts += 1),
  );
  return { box, written, timedOut: () => timeouts };
}

describe('WebSocket outbox', () => {
  it('gives back what each message held, in the order sent, and nothing for those written at once', () => {
    const { box, written, timedOut } = outbox(1_000);
    box.sent(10, 'a');
    box.sent(0, undefined);
    box.sent(30, 'c');
    box.written();
    box.written();
    expect(written).to.deep.equal([['a', 10]]);
    box.written();
    expect(written).to.deep.equal([
      ['a', 10],
      ['c', 30],
    ]);
    expect(timedOut()).to.equal(0);
  });

  it('keeps its order over many messages, past the point where it drops those written', () => {
    const { box, written } = outbox(1_000);
    for (let i = 0; i < 5_000; i++) box.sent(i + 1, `m${i}`);
    for (let i = 0; i < 3_000; i++) box.written();
    for (let i = 5_000; i < 6_000; i++) box.sent(i + 1, `m${i}`);
    for (let i = 0; i < 3_000; i++) box.written();
    expect(written.map(([held]) => held)).to.deep.equal(Array.from({ length: 6_000 }, (_, i) => `m${i}`));
    expect(written.every(([held, bytes]) => held === `m${bytes - 1}`)).to.equal(true);
  });

  it('times out once its oldest message has waited the timeout unwritten, not while messages are written in time', async () => {
    const { box, timedOut } = outbox(150);
    box.sent(10, 'first');
    await sleep(100);
    // The first is written; the second, sent 100 ms in, has its own 150 ms from then.
    box.sent(10, 'second');
    box.written();
    await sleep(100);
    expect(timedOut()).to.equal(0);
    await sleep(200);
    expect(timedOut()).to.equal(1);
  });

  it('sets no timer once everything sent is written', async () => {
    const { box, timedOut } = outbox(50);
    box.sent(10, 'a');
    box.written();
    await sleep(120);
    expect(timedOut()).to.equal(0);
  });
});

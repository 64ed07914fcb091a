import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { MAX_BATCHES_UNDER_WAY, runBoundedBatch, type BoundedBatchOptions } from '@evmnode/core';

const ANSWER = 'x'.repeat(100);

describe('bounded batches', () => {
  /** A batch of 1000 calls answered by `answer`, and which of them were started. */
  async function recorded(answer: (index: number) => string | Promise<string>, options: BoundedBatchOptions) {
    const started: number[] = [];
    const run = await runBoundedBatch(
      1000,
      (index) => {
        started.push(index);
        return answer(index);
      },
      options,
    );
    return { run, started };
  }

  it('stops running calls answered at once when their answers pass the size cap', async () => {
    const { run, started } = await recorded(() => ANSWER, { maxBytes: 1000 });
    // Eleven answers of 100 bytes pass 1000.
    expect(run).to.deep.include({ stop: 'too-large', counted: 11, next: 11, running: [] });
    expect(started).to.have.length(11);
  });

  it('counts an answer in pieces by its bytes, not by its pieces', async () => {
    const pieces = [Buffer.alloc(60), Buffer.alloc(40)];
    const run = await runBoundedBatch(1000, () => pieces, { maxBytes: 1000 });
    // Eleven answers of 100 bytes pass 1000.
    expect(run).to.deep.include({ stop: 'too-large', counted: 11, next: 11, running: [] });
  });

  it('holds at most `concurrency` uncounted answers behind a call still running, so that the cap still bounds the batch', async () => {
    // The first call takes a while (a block not yet cached); the others answer at once (cached).
    const { run, started } = await recorded((index) => (index === 0 ? sleep(10).then(() => ANSWER) : ANSWER), {
      maxBytes: 1000,
      concurrency: 4,
    });
    expect(run).to.deep.include({ stop: 'too-large', counted: 11, next: 11, running: [] });
    expect(started).to.deep.equal([...Array(11).keys()]);
  });

  it('runs every call of a batch under the cap, in order, answers taken as they come', async () => {
    const run = await runBoundedBatch(
      10,
      (index) => (index % 3 === 0 ? sleep(10 - index).then(() => `${index}`) : `${index}`),
      { maxBytes: 1000, concurrency: 4 },
    );
    expect(run).to.deep.include({ stop: undefined, counted: 10, next: 10, running: [] });
    expect(run.answers).to.deep.equal(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });

  it('gives the event loop turns during a long batch, its calls answered at once or through promises alone', async () => {
    /** Holds the thread for 0.2 ms, as a call's own work does. */
    const work = (index: number): string => {
      const until = performance.now() + 0.2;
      while (performance.now() < until);
      return `${index}`;
    };
    for (const call of [work, (index: number) => Promise.resolve().then(() => work(index))]) {
      let turns = 0;
      const ticking = setInterval(() => turns++, 1);
      const run = await runBoundedBatch(1000, call, { maxBytes: 1_000_000 });
      clearInterval(ticking);
      expect(run.answers).to.deep.equal([...Array(1000).keys()].map(String));
      // 200 ms of calls: a timer of 1 ms fires between turns of 4 ms; without turns it fires not at all.
      expect(turns).to.be.at.least(10);
    }
  });

  it(`runs at most ${MAX_BATCHES_UNDER_WAY} batches at once; the others wait their turn, in order`, async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started: number[] = [];
    const batches = Array.from({ length: MAX_BATCHES_UNDER_WAY + 3 }, (_, batch) =>
      runBoundedBatch(
        1,
        () => {
          started.push(batch);
          return gate.then(() => `${batch}`);
        },
        { maxBytes: 1000 },
      ),
    );
    await sleep(20);
    expect(started).to.deep.equal([...Array(MAX_BATCHES_UNDER_WAY).keys()]);
    release();
    const runs = await Promise.all(batches);
    expect(started).to.deep.equal([...Array(MAX_BATCHES_UNDER_WAY + 3).keys()]);
    expect(runs.map((run) => run.answers[0])).to.deep.equal(runs.map((_, batch) => `${batch}`));
  });

  it('times out a batch that waits for its turn past its timeout, running none of its calls', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const holding = Array.from({ length: MAX_BATCHES_UNDER_WAY }, () =>
      runBoundedBatch(1, () => gate.then(() => 'x'), { maxBytes: 1000 }),
    );
    let ran = false;
    const late = await runBoundedBatch(
      3,
      () => {
        ran = true;
        return 'y';
      },
      { maxBytes: 1000, timeoutMs: 30 },
    );
    expect(late).to.deep.include({ stop: 'timed-out', counted: 0, next: 0, running: [] });
    expect(ran).to.equal(false);
    release();
    await Promise.all(holding);
    // The slots are all free again.
    const after = await runBoundedBatch(2, (index) => `${index}`, { maxBytes: 1000 });
    expect(after.answers).to.deep.equal(['0', '1']);
  });
});

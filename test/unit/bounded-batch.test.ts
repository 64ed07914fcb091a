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

  describe('shared out by client', () => {
    /** A one-call batch of `client` that starts, records itself, and ends once its gate opens. */
    function gatedBatch(client: string, name: string, started: string[], share = 0.25) {
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const run = runBoundedBatch(
        1,
        () => {
          started.push(name);
          return gate.then(() => name);
        },
        { maxBytes: 1000, client: { id: client, share } },
      );
      return { open, run };
    }

    it(`runs at most a client's share of the ${MAX_BATCHES_UNDER_WAY} at once; the others serve other clients`, async () => {
      const started: string[] = [];
      // A share of 0.25: 8 of 32.
      const flood = Array.from({ length: 20 }, (_, index) => gatedBatch('203.0.113.7', `a${index}`, started));
      const other = gatedBatch('198.51.100.2', 'b0', started);
      await sleep(20);
      expect(started).to.deep.equal([...Array.from({ length: 8 }, (_, index) => `a${index}`), 'b0']);
      // One of the flood's ends: the next of its own starts, and only that one.
      flood[0]!.open();
      await sleep(20);
      expect(started.slice(9)).to.deep.equal(['a8']);
      for (const batch of [...flood, other]) batch.open();
      const runs = await Promise.all([...flood, other].map((batch) => batch.run));
      expect(runs.map((run) => run.answers[0])).to.deep.equal([...flood.map((_, index) => `a${index}`), 'b0']);
      expect(started).to.have.length(21);
    });

    it("serves waiting clients in turn, each client's batches in order, when every slot is taken", async () => {
      const started: string[] = [];
      // A share of 1: one client may take all the slots.
      const holding = Array.from({ length: MAX_BATCHES_UNDER_WAY }, (_, index) =>
        gatedBatch('192.0.2.1', `h${index}`, started, 1),
      );
      const waiting = [
        ...['a0', 'a1', 'a2'].map((name) => gatedBatch('203.0.113.7', name, started, 1)),
        ...['b0', 'b1'].map((name) => gatedBatch('198.51.100.2', name, started, 1)),
      ];
      await sleep(20);
      expect(started).to.have.length(MAX_BATCHES_UNDER_WAY);
      // Slots come free one at a time: the first waiting client, then the next, then the first again.
      for (const [index, expected] of ['a0', 'b0', 'a1', 'b1', 'a2'].entries()) {
        holding[index]!.open();
        await sleep(5);
        expect(started.slice(MAX_BATCHES_UNDER_WAY)).to.deep.equal(
          ['a0', 'b0', 'a1', 'b1', 'a2'].slice(0, index + 1),
          expected,
        );
      }
      for (const batch of [...holding, ...waiting]) batch.open();
      await Promise.all([...holding, ...waiting].map((batch) => batch.run));
    });
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

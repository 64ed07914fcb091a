import { expect } from 'chai';
import type { CommittedBlock } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, nextBlocks, sign, submit, submitTogether, waitForReceipt } from '../support/chain-kit.js';
import { loopGaps } from '../support/load-checks.js';

/** Init code that loops until its gas runs out: JUMPDEST, PUSH1 0, JUMP. */
const ENDLESS_LOOP = '0x5b600056';
/** About 1 ms of the interpreter each, past creation's 53,000 gas: 120 of them fill a block. */
const GAS_PER_TX = 100_000n;
const TXS = 120;
/** The longest a public node may hold its event loop for one piece of work. */
const LONGEST_TURN_MS = 50;

describe('block production and the event loop', function () {
  this.timeout(60_000);
  let node: TestNode;

  before(async () => {
    node = await startTestNode({
      plugins: ['eth-query', 'eth-send'],
      // One sender's whole batch waits in the pool until its first nonce makes it ready.
      config: { consensus: { block_time: 2500 }, mempool: { account_queue: TXS }, logging: { level: 'debug' } },
    });
    // The delay measured is this process's, client included: the client's first submission
    // compiles its schema validator and opens its connection (40-60 ms in one piece), so it
    // happens here, before any measurement.
    const warmUp = await sign(devWallet(5), { nonce: 0, to: devWallet(6).address, value: 1n });
    await waitForReceipt(node.url, await submit(node.url, warmUp));
  });
  after(() => node.stop());

  /**
   * Sends `raws` (one sender's, consecutive nonces) so that they become ready at once and waits
   * until blocks include them all; resolves to the event loop's longest delay meanwhile (ms) and
   * the longest transactions phase of those blocks.
   */
  async function includeAll(raws: readonly string[]): Promise<{ longestDelayMs: number; longestRunMs: number }> {
    const gaps = loopGaps();
    const hashes = new Set(await submitTogether(node.url, raws));
    const heights: number[] = [];
    let included = 0;
    while (included < raws.length) {
      const [{ block }] = (await nextBlocks(node.node.chain)) as [CommittedBlock];
      const ours = block.transactions.filter((hash) => hashes.has(hash)).length;
      if (ours > 0) heights.push(block.height);
      included += ours;
    }
    const longestDelayMs = gaps.stop();
    const runs = node.logs.filter((line) => line.msg === 'block committed' && heights.includes(line.height as number));
    return {
      longestDelayMs,
      longestRunMs: Math.max(...runs.map((line) => line.transactionsMs as number)),
    };
  }

  it("gives other work turns while a block's transactions run, however long they take together", async () => {
    const sender = devWallet(3);
    const raws = await Promise.all(
      Array.from({ length: TXS }, (_, nonce) => sign(sender, { nonce, data: ENDLESS_LOOP, gasLimit: GAS_PER_TX })),
    );
    const { longestDelayMs, longestRunMs } = await includeAll(raws);
    // The check means something only when the transactions ran longer than a turn may.
    expect(longestRunMs).to.be.above(LONGEST_TURN_MS);
    expect(longestDelayMs).to.be.below(LONGEST_TURN_MS);
  });

  it('gives other work turns while one transaction computes for the whole block', async () => {
    const sender = devWallet(4);
    const raw = await sign(sender, { nonce: 0, data: ENDLESS_LOOP, gasLimit: 12_000_000n });
    const { longestDelayMs, longestRunMs } = await includeAll([raw]);
    expect(longestRunMs).to.be.above(LONGEST_TURN_MS);
    expect(longestDelayMs).to.be.below(LONGEST_TURN_MS);
  });
});

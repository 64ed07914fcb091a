import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, nextBlocks, sign, submitTogether } from '../support/chain-kit.js';

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
  });
  after(() => node.stop());

  it("gives other work turns while a block's transactions run, however long they take together", async () => {
    const sender = devWallet(3);
    const raws = await Promise.all(
      Array.from({ length: TXS }, (_, nonce) => sign(sender, { nonce, data: ENDLESS_LOOP, gasLimit: GAS_PER_TX })),
    );
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const hashes = new Set(await submitTogether(node.url, raws));
    let included = 0;
    while (included < TXS) {
      const [committed] = await nextBlocks(node.node.chain);
      included += committed!.block.transactions.filter((hash) => hashes.has(hash)).length;
    }
    delay.disable();

    const runs = node.logs.filter((line) => line.msg === 'block committed' && (line.transactions as number) > 0);
    const longestRun = Math.max(...runs.map((line) => line.transactionsMs as number));
    // The check means something only when the transactions ran longer than a turn may.
    expect(longestRun).to.be.above(LONGEST_TURN_MS);
    expect(delay.max / 1e6).to.be.below(LONGEST_TURN_MS);
  });
});

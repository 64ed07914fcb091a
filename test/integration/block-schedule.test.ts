import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { CHAIN_ID, devWallet, ETHER, sign, submitTogether, waitForReceipt } from '../support/chain-kit.js';
import { temporaryDir } from '../support/temp-dirs.js';

const BLOCK_TIME_MS = 1_000;
/** Ten plain transfers fill a block. */
const TRANSFERS_PER_BLOCK = 10;
const BLOCKS = 4;
const sender = devWallet(0);

/** A home whose genesis has blocks of ten transfers' gas and funds the first dev account. */
function homeWithSmallBlocks(): string {
  const home = temporaryDir('schedule');
  mkdirSync(path.join(home, 'config'));
  const genesis = {
    chainId: Number(CHAIN_ID),
    genesisTime: Date.now(),
    gasLimit: `0x${(21_000 * TRANSFERS_PER_BLOCK).toString(16)}`,
    alloc: { [sender.address]: { balance: `0x${ETHER.toString(16)}` } },
  };
  writeFileSync(path.join(home, 'config', 'genesis.json'), JSON.stringify(genesis));
  return home;
}

describe('block schedule', function () {
  this.timeout(60_000);
  let node: TestNode;

  before(async () => {
    node = await startTestNode({
      home: homeWithSmallBlocks(),
      config: { consensus: { block_time: BLOCK_TIME_MS }, logging: { level: 'debug' } },
    });
  });
  after(() => node.stop());

  it('starts a block that its waiting transactions fill as soon as the block before it is published, and publishes it when due', async () => {
    // Four blocks' worth, made ready at once (the first nonce last): the pool fills the next
    // three blocks when each is started.
    const to = `0x${'cc'.repeat(20)}`;
    const raws = await Promise.all(
      Array.from({ length: BLOCKS * TRANSFERS_PER_BLOCK }, (_, nonce) =>
        sign(sender, { nonce, to, value: 1n, gasLimit: 21_000n }),
      ),
    );
    const publishedAt = new Map<number, number>();
    const stop = node.node.chain.events.onBlock(({ block }) => void publishedAt.set(block.height, performance.now()));
    const hashes = await submitTogether(node.url, raws);
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
    stop();
    const heights = [...new Set(receipts.map((receipt) => Number(receipt.blockNumber)))];
    expect(heights).to.have.length(BLOCKS);

    const committed = node.logs.filter(
      (line) => line.msg === 'block committed' && heights.includes(line.height as number),
    );
    expect(committed.map((line) => line.transactions)).to.deep.equal(Array(BLOCKS).fill(TRANSFERS_PER_BLOCK));
    // The first full block started as late as a full block needs (a few ms here, blocks of ten
    // transfers being quick). Each later one was started when the one before it was published,
    // a whole block time before its own publication, and was held that long once committed.
    for (const line of committed.slice(1)) {
      expect((line.durationMs as number) + (line.heldMs as number)).to.be.within(
        0.8 * BLOCK_TIME_MS,
        1.1 * BLOCK_TIME_MS,
      );
    }
    // Published a block time apart all the same.
    const times = heights.map((height) => publishedAt.get(height)!);
    for (let index = 1; index < times.length; index++) {
      expect(times[index]! - times[index - 1]!).to.be.at.least(0.9 * BLOCK_TIME_MS);
    }
  });
});

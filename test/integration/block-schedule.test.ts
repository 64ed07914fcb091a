import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import {
  balanceOf,
  CHAIN_ID,
  devWallet,
  ETHER,
  expectedNextBaseFee,
  quantity,
  sign,
  submitTogether,
  waitForReceipt,
} from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
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

/** A node on a home with small blocks, due every `blockTimeMs`, that logs each block. */
function startWithSmallBlocks(blockTimeMs: number): Promise<TestNode> {
  return startTestNode({
    home: homeWithSmallBlocks(),
    config: { consensus: { block_time: blockTimeMs }, logging: { level: 'debug' } },
  });
}

/** `count` transfers of 1 wei to `to`, with the sender's nonces from 0. */
function signTransfers(count: number, to: string): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, (_, nonce) => sign(sender, { nonce, to, value: 1n, gasLimit: 21_000n })),
  );
}

describe('block schedule', function () {
  this.timeout(60_000);
  let node: TestNode;

  before(async () => {
    node = await startWithSmallBlocks(BLOCK_TIME_MS);
  });
  after(() => node.stop());

  it('starts a block that its waiting transactions fill on the state of the block before it, before that one is published, and publishes it when due', async () => {
    // Four blocks' worth, made ready at once (the first nonce last): the pool fills the next
    // three blocks when each is started.
    const raws = await signTransfers(BLOCKS * TRANSFERS_PER_BLOCK, `0x${'cc'.repeat(20)}`);
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
    const times = heights.map((height) => publishedAt.get(height)!);
    // The first full block started as late as a full block needs (a few ms here, blocks of ten
    // transfers being quick). Each later one started on the state of the one before it, while
    // that one waited for its time, from the lead of a full block before it on (a fraction of the
    // block time); written once that one was published, it was then held most of a block time,
    // and not two: its timer may fire late on a loaded machine, as any timer may.
    for (const [index, line] of committed.entries()) {
      if (index === 0) continue;
      expect(line.pipelined).to.equal(true);
      const startedAt = times[index]! - (line.durationMs as number) - (line.waitMs as number) - (line.heldMs as number);
      expect(startedAt).to.be.within(times[index - 1]! - 0.5 * BLOCK_TIME_MS, times[index - 1]!);
      expect(line.heldMs).to.be.within(0.8 * BLOCK_TIME_MS, 1.5 * BLOCK_TIME_MS);
    }
    // Published a block time apart all the same.
    for (let index = 1; index < times.length; index++) {
      expect(times[index]! - times[index - 1]!).to.be.at.least(0.9 * BLOCK_TIME_MS);
    }
  });
});

describe('block schedule: blocks behind their time', function () {
  this.timeout(60_000);
  // Within the pool's 64 queued transactions a sender may have.
  const LATE_BLOCKS = 6;
  let node: TestNode;

  before(async () => {
    // Due every millisecond: every block is still being written when the next one is due.
    node = await startWithSmallBlocks(1);
  });
  after(() => node.stop());

  it('executes a block its waiting transactions fill while the block before it is written, and publishes each after its parent with the state both leave', async () => {
    const to = `0x${'dd'.repeat(20)}`;
    const raws = await signTransfers(LATE_BLOCKS * TRANSFERS_PER_BLOCK, to);
    const published: number[] = [];
    const stop = node.node.chain.events.onBlock(({ block }) => void published.push(block.height));
    const hashes = await submitTogether(node.url, raws);
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
    stop();
    expect(receipts.every((receipt) => receipt.status === '0x1')).to.equal(true);

    // Published one at a time, in height order.
    for (let index = 1; index < published.length; index++) {
      expect(published[index]).to.equal(published[index - 1]! + 1);
    }
    const heights = [...new Set(receipts.map((receipt) => Number(receipt.blockNumber)))];
    const committed = node.logs.filter(
      (line) => line.msg === 'block committed' && heights.includes(line.height as number),
    );
    expect(committed.reduce((sum, line) => sum + (line.transactions as number), 0)).to.equal(raws.length);
    expect(committed.filter((line) => line.pipelined === true)).to.not.have.length(0);

    // Each block on its parent, with the base fee its parent sets, and the nonces in order.
    let parent = (await rpc(node.url, 'eth_getBlockByNumber', [quantity(heights[0]! - 1), false])).result;
    for (let height = heights[0]!; height <= heights.at(-1)!; height++) {
      const block = (await rpc(node.url, 'eth_getBlockByNumber', [quantity(height), false])).result;
      expect(block.parentHash, `block ${height}`).to.equal(parent.hash);
      // Genesis's base fee is its child's own.
      const baseFee = BigInt(parent.baseFeePerGas);
      expect(BigInt(block.baseFeePerGas), `block ${height}`).to.equal(
        Number(parent.number) === 0
          ? baseFee
          : expectedNextBaseFee(baseFee, BigInt(parent.gasUsed), BigInt(parent.gasLimit)),
      );
      parent = block;
    }
    const positions = receipts.map((receipt) => Number(receipt.blockNumber) * 1_000 + Number(receipt.transactionIndex));
    for (let nonce = 1; nonce < positions.length; nonce++) {
      expect(positions[nonce]).to.be.above(positions[nonce - 1]!);
    }
    const fees = receipts.reduce(
      (sum, receipt) => sum + BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice),
      0n,
    );
    expect(await balanceOf(node.url, to)).to.equal(BigInt(raws.length));
    expect(await balanceOf(node.url, sender.address)).to.equal(ETHER - BigInt(raws.length) - fees);
  });
});

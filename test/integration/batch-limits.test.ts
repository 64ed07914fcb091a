import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, quantity, sign, submitTogether, untilHeight, waitForReceipt } from '../support/chain-kit.js';
import { expectResponsive, withPeakRss } from '../support/load-checks.js';
import { post } from '../support/rpc-client.js';

/** The cap of these tests: small, so that a batch reaches it quickly. */
const RESPONSE_MAX_BYTES = 2_000_000;
const SENDERS = 10;
const TRANSFERS_EACH = 40;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';

/**
 * Sends a batch of 1000 copies of one call and checks the answer: an array in order, results up
 * to the response size cap, then geth's `response too large` for every remaining call. Returns
 * the results.
 */
async function heavyBatch(node: TestNode, method: string, params: unknown[]): Promise<unknown[]> {
  const batch = Array.from({ length: 1000 }, (_, id) => ({ jsonrpc: '2.0', id, method, params }));
  const { result: answers, peakGrowthMib } = await withPeakRss(async () => {
    const { status, text } = await post(node.url, JSON.stringify(batch));
    expect(status).to.equal(200);
    return JSON.parse(text) as any[];
  });
  expect(answers).to.be.an('array').with.length(1000);
  expect(answers.map((answer) => answer.id)).to.deep.equal(batch.map((call) => call.id));
  const cut = answers.findIndex((answer) => answer.error !== undefined);
  expect(cut, 'first refused element').to.be.above(0);
  // The answers kept pass the cap by the last one at most.
  const sizes = answers.slice(0, cut).map((answer) => JSON.stringify(answer).length);
  const kept = sizes.reduce((total, size) => total + size, 0);
  expect(kept - sizes[cut - 1]!).to.be.at.most(RESPONSE_MAX_BYTES);
  expect(kept).to.be.above(RESPONSE_MAX_BYTES);
  for (const answer of answers.slice(cut)) {
    expect(answer).to.deep.equal({
      jsonrpc: '2.0',
      id: answer.id,
      error: { code: -32003, message: 'response too large' },
    });
  }
  // About 20 MiB here; a batch running every call behind one still running grew it by 160-270.
  expect(peakGrowthMib, 'RSS growth (MiB)').to.be.below(100);
  return answers.slice(0, cut).map((answer) => answer.result as unknown);
}

describe('batches of heavy calls stop at batch_response_max_size', function () {
  this.timeout(180_000);
  let node: TestNode;
  /** The height of a block holding hundreds of transfers. */
  let fullHeight: number;

  before(async () => {
    node = await startTestNode({
      config: { consensus: { block_time: 100 }, evm: { batch_response_max_size: RESPONSE_MAX_BYTES } },
    });
    // Each sender's later nonces wait in the pool; its first makes them all ready at once.
    const raws = await Promise.all(
      Array.from({ length: SENDERS }, (_, sender) =>
        Promise.all(
          Array.from({ length: TRANSFERS_EACH }, (_, nonce) =>
            sign(devWallet(sender), { nonce, to: RECIPIENT, value: 1n, gasLimit: 21_000n }),
          ),
        ),
      ),
    );
    const hashes = (await Promise.all(raws.map((raw) => submitTogether(node.url, raw)))).flat();
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash, 60_000)));
    const perBlock = new Map<number, number>();
    for (const { blockNumber } of receipts)
      perBlock.set(Number(blockNumber), (perBlock.get(Number(blockNumber)) ?? 0) + 1);
    const [height, count] = [...perBlock].sort((a, b) => b[1] - a[1])[0]!;
    expect(count, 'transactions in the fullest block').to.be.at.least(TRANSFERS_EACH * 2);
    fullHeight = height;
    await untilHeight(node.node.chain, 100);
  });
  after(() => node.stop());

  it('answers 1000 eth_feeHistory over 1024 blocks up to the cap, then -32003 for each call left', async () => {
    const results = await heavyBatch(node, 'eth_feeHistory', ['0x400', 'latest', [25, 50, 75]]);
    for (const result of results) expect(result).to.have.keys('oldestBlock', 'baseFeePerGas', 'gasUsedRatio', 'reward');
    await expectResponsive(node);
  });

  it('answers 1000 eth_getBlockByNumber of a full block with its transactions up to the cap, then -32003', async () => {
    const results = (await heavyBatch(node, 'eth_getBlockByNumber', [quantity(fullHeight), true])) as any[];
    for (const block of results) expect(block.transactions.length).to.be.at.least(TRANSFERS_EACH * 2);
    await expectResponsive(node);
  });
});

import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import {
  balanceOf,
  DEV_BALANCE,
  devWallet,
  GWEI,
  nextBlocks,
  quantity,
  receiptOf,
  sendRaw,
  sign,
} from '../support/chain-kit.js';
import { overHttp, resultOf } from '../support/rpc-answers.js';

const POINT_EVALUATION = '0x000000000000000000000000000000000000000a';
const RECIPIENT = '0x00000000000000000000000000000000000000b1';

/** The cryptography the chain's EVM rules use (ethereumjs' `CustomCrypto`). */
type CustomCrypto = TestNode['node']['chain']['common']['customCrypto'];

/**
 * A transaction whose execution throws inside the EVM: the point-evaluation precompile throws
 * `kzg not initialized` when the chain's rules carry no KZG, as they did before one was configured.
 * The KZG is taken away from the running node's rules for the test's duration.
 */
describe('a transaction whose execution throws', () => {
  let node: TestNode;
  let crypto: CustomCrypto;
  let kzg: NonNullable<CustomCrypto['kzg']>;

  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 100 }, evm: { slow: true } } });
    crypto = node.node.chain.common.customCrypto;
    kzg = crypto.kzg!;
    delete crypto.kzg;
  });
  after(async () => {
    crypto.kzg = kzg;
    await node.stop();
  });

  it('is dropped with a warning, answers its slow sender, and leaves the block and the next ones whole', async () => {
    const thrower = devWallet(0);
    // Under 50,000 gas reaches the precompile, which the main thread runs itself.
    const throwing = await sign(thrower, {
      nonce: 0,
      to: POINT_EVALUATION,
      data: `0x${'00'.repeat(192)}`,
      gasLimit: 60_000n,
      maxPriorityFeePerGas: 2n * GWEI,
      maxFeePerGas: 10n * GWEI,
    });
    // A lower tip: it runs after the throwing one, in the same block when both arrive together.
    const transfer = await sign(devWallet(1), { nonce: 0, to: RECIPIENT, value: 5n });
    const [throwingAnswer, transferAnswer] = await Promise.all([
      sendRaw(node.url, throwing),
      sendRaw(node.url, transfer),
    ]);

    expect(throwingAnswer.error).to.equal(undefined);
    const hash = throwingAnswer.result as string;
    expect(await receiptOf(node.url, hash)).to.equal(null);
    expect(await resultOf(overHttp(node.url), 'eth_getTransactionByHash', [hash])).to.equal(null);
    expect(await resultOf(overHttp(node.url), 'eth_getTransactionCount', [thrower.address, 'pending'])).to.equal('0x0');
    expect(await balanceOf(node.url, thrower.address)).to.equal(DEV_BALANCE);
    const warnings = node.logs.filter((line) => line.level === 40 && line.tx === hash);
    expect(warnings.map((line) => [line.msg, (line.err as { message: string }).message])).to.deep.equal([
      ['transaction dropped: its execution threw', 'kzg not initialized'],
    ]);

    expect(transferAnswer.error).to.equal(undefined);
    expect((await receiptOf(node.url, transferAnswer.result)).status).to.equal('0x1');
    expect(await balanceOf(node.url, RECIPIENT)).to.equal(5n);
    const [next] = await nextBlocks(node.node.chain);
    expect(next!.block.height).to.be.greaterThan(
      Number((await receiptOf(node.url, transferAnswer.result)).blockNumber),
    );
    expect(await balanceOf(node.url, RECIPIENT, quantity(next!.block.height))).to.equal(5n);
  });
});

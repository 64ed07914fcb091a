import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { CHAIN_ID, devWallet, FEE_COLLECTOR, GWEI, sign, submit, waitForReceipt } from '../support/chain-kit.js';

/**
 * Init code that logs, in one 160-byte LOG0: COINBASE, PREVRANDAO, BLOCKHASH(number - 1),
 * CHAINID and BASEFEE, each as a 32-byte word.
 */
const CONTEXT_LOGGER =
  '0x' + '41600052' + '44602052' + '4360019003406040' + '52' + '46606052' + '48608052' + '60a06000a000';

describe('EVM block context', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 100 } } });
  });
  after(() => node.stop());

  it('sees the fee collector as COINBASE, our PREVRANDAO, block hashes, the chain ID and the base fee', async () => {
    while (node.node.chain.head().height < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    const raw = await sign(devWallet(0), {
      type: 2,
      chainId: CHAIN_ID,
      nonce: 0,
      data: CONTEXT_LOGGER,
      gasLimit: 200_000,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
    const receipt = await waitForReceipt(node.url, await submit(node.url, raw));
    expect(receipt.status).to.equal('0x1');
    const data = receipt.logs[0].data as string;
    const words = data.slice(2).match(/.{64}/g);
    const height = Number(receipt.blockNumber);
    const block = (await node.node.chain.store.blockAt(height))!;
    const parent = (await node.node.chain.store.blockAt(height - 1))!;
    expect(words).to.deep.equal([
      FEE_COLLECTOR.slice(2).padStart(64, '0'),
      block.prevRandao.slice(2),
      parent.hash.slice(2),
      CHAIN_ID.toString(16).padStart(64, '0'),
      BigInt(block.baseFeePerGas).toString(16).padStart(64, '0'),
    ]);
  });
});

import { expect } from 'chai';
import { startTestNode } from '@evmnode/core/testing';
import { CHAIN_ID, devWallet, GWEI, receiptOf, sign, sleep } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';

const transfer = (nonce: number) =>
  sign(devWallet(2), {
    type: 2,
    chainId: CHAIN_ID,
    nonce,
    to: '0x00000000000000000000000000000000000000cc',
    value: 1n,
    gasLimit: 21_000,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
  });

describe('block producer settings', () => {
  it('answers eth_sendRawTransaction only once the block is committed in slow mode', async () => {
    const node = await startTestNode({ config: { evm: { slow: true }, consensus: { block_time: 300 } } });
    try {
      const started = Date.now();
      const { result: hash } = await rpc(node.url, 'eth_sendRawTransaction', [await transfer(0)]);
      expect(hash).to.match(/^0x[0-9a-f]{64}$/);
      // The receipt is there as soon as the hash is.
      expect((await receiptOf(node.url, hash)).status).to.equal('0x1');
      expect(Date.now() - started).to.be.below(2000);
    } finally {
      await node.stop();
    }
  });

  it('answers with the hash at admission by default, before the block', async () => {
    const node = await startTestNode({ config: { consensus: { block_time: 1000 } } });
    try {
      const { result: hash } = await rpc(node.url, 'eth_sendRawTransaction', [await transfer(0)]);
      expect(await receiptOf(node.url, hash)).to.equal(null);
    } finally {
      await node.stop();
    }
  });

  it('produces no empty blocks when create_empty_blocks is false', async () => {
    const node = await startTestNode({ config: { consensus: { block_time: 30, create_empty_blocks: false } } });
    try {
      await sleep(300);
      expect((await rpc(node.url, 'eth_blockNumber')).result).to.equal('0x0');
      const { result: hash } = await rpc(node.url, 'eth_sendRawTransaction', [await transfer(0)]);
      while ((await receiptOf(node.url, hash)) === null) await sleep(20);
      await sleep(300);
      expect((await rpc(node.url, 'eth_blockNumber')).result).to.equal('0x1');
    } finally {
      await node.stop();
    }
  });
});

import { expect } from 'chai';
import { Transaction } from 'ethers';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, lower, sign } from '../support/chain-kit.js';
import { fixturePlugin } from '../support/plugins/paths.js';
import { rpc } from '../support/rpc-client.js';

const RECIPIENT = '0x00000000000000000000000000000000000000aa';

describe('plugin API services: the pool through TxPoolReader', () => {
  let node: TestNode;
  const call = async (method: string, params: unknown[] = []) => (await rpc(node.url, method, params)).result;

  before(async () => {
    // No block for a minute: everything admitted stays pooled.
    node = await startTestNode({
      plugins: ['eth-query', 'eth-send', fixturePlugin('pool-inspector')],
      config: { consensus: { block_time: 60_000 } },
    });
  });
  after(() => node.stop());

  it('shows each sender’s ready and gapped transactions in nonce order, and the pending nonce past the ready ones', async () => {
    const [first, second] = [devWallet(1), devWallet(2)];
    // Out of order, with a gap at nonce 3 for the first sender.
    for (const raw of [
      await sign(first, { nonce: 1, to: RECIPIENT }),
      await sign(first, { nonce: 4, to: RECIPIENT }),
      await sign(first, { nonce: 0, to: RECIPIENT }),
      await sign(second, { nonce: 0, to: RECIPIENT }),
      await sign(first, { nonce: 2, to: RECIPIENT }),
    ]) {
      expect((await rpc(node.url, 'eth_sendRawTransaction', [raw])).error).to.equal(undefined);
    }

    expect(await call('test_poolCounts')).to.deep.equal({ pending: 4, queued: 1 });
    expect(await call('test_poolContent')).to.deep.equal({
      [lower(first.address)]: { pending: ['0x0', '0x1', '0x2'], queued: ['0x4'] },
      [lower(second.address)]: { pending: ['0x0'], queued: [] },
    });
    expect(await call('test_poolFrom', [devWallet(3).address])).to.deep.equal({ pending: [], queued: [] });
    expect(await call('test_pendingNonce', [first.address])).to.deep.equal({ head: 0, nonce: '0x3' });

    const firstHash = Transaction.from(await sign(second, { nonce: 0, to: RECIPIENT })).hash;
    expect(await call('test_pooledSender', [second.address, RECIPIENT])).to.deep.equal({
      hash: firstHash,
      sender: lower(second.address),
      to: RECIPIENT,
    });

    // Filling the gap makes the queued one ready.
    await rpc(node.url, 'eth_sendRawTransaction', [await sign(first, { nonce: 3, to: RECIPIENT })]);
    expect(await call('test_poolFrom', [first.address])).to.deep.equal({
      pending: ['0x0', '0x1', '0x2', '0x3', '0x4'],
      queued: [],
    });
    expect(await call('test_poolCounts')).to.deep.equal({ pending: 6, queued: 0 });
  });
});

describe('plugin API services: tracing through the Replayer', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      plugins: ['eth-query', 'eth-send', fixturePlugin('trace-inspector')],
      config: { consensus: { block_time: 100 } },
    });
  });
  after(() => node.stop());

  it('replays a committed creation with a tracer attached and gets its frames, its opcodes (all, or the ones asked for) and the receipt gasUsed', async () => {
    // Init code that stores 42 in slot 0 twice and returns no code: PUSH1 42, PUSH1 0, SSTORE, twice.
    const raw = await sign(devWallet(4), { nonce: 0, data: '0x602a600055602a600055', gasLimit: 100_000n });
    const { result: hash } = await rpc(node.url, 'eth_sendRawTransaction', [raw]);
    let receipt = null;
    while (receipt === null) receipt = (await rpc(node.url, 'eth_getTransactionReceipt', [hash])).result;

    expect((await rpc(node.url, 'test_traceFrames', [hash])).result).to.deep.equal({
      frames: ['0:CREATE'],
      opcodes: ['PUSH1', 'PUSH1', 'SSTORE', 'PUSH1', 'PUSH1', 'SSTORE'],
      sstores: ['SSTORE', 'SSTORE'],
      gasUsed: receipt.gasUsed,
      receiptGasUsed: receipt.gasUsed,
    });
    expect((await rpc(node.url, 'test_traceFrames', [`0x${'ab'.repeat(32)}`])).error).to.deep.equal({
      code: -32000,
      message: 'transaction not found',
    });
  });
});

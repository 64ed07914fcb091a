import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, lower, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { errorOf, legacyGateRefusal, methodNotFound, overHttp, resultOf, type Call } from '../support/rpc-answers.js';

/** A transfer from dev account 3, mined; its hash. */
async function minedTransfer(url: string): Promise<string> {
  const raw = await sign(devWallet(3), { to: devWallet(4).address, value: 1000n, nonce: 0 });
  const hash = await submit(url, raw);
  await waitForReceipt(url, hash);
  return hash;
}

describe('operator profiles', function () {
  this.timeout(60_000);

  describe('public-minimal', () => {
    let node: TestNode;
    let call: Call;
    before(async () => {
      node = await startTestNode({ profile: 'public-minimal' });
      call = overHttp(node.url);
    });
    after(() => node.stop());

    it('serves eth_ reads and sends, the pool and filters', async () => {
      const hash = await minedTransfer(node.url);
      const transaction = await resultOf(call, 'eth_getTransactionByHash', [hash]);
      expect(transaction.from).to.equal(lower(devWallet(3).address));
      expect(await resultOf(call, 'txpool_content', [])).to.deep.equal({ pending: {}, queued: {} });
      expect(await resultOf(call, 'eth_newBlockFilter', [])).to.match(/^0x[0-9a-f]+$/);
    });

    it('answers debug_ methods with -32601 and every ext_/ext2_ method with the legacy gate refusal', async () => {
      for (const method of ['debug_traceTransaction', 'debug_traceCall', 'debug_traceBlockByNumber'])
        expect(await errorOf(call, method, [])).to.deep.equal(methodNotFound(method));
      for (const method of ['ext_getBlockByNumber', 'ext_getLogs', 'ext2_getBlockByNumber', 'ext_sign'])
        expect(await errorOf(call, method, [])).to.deep.equal(legacyGateRefusal(method));
    });

    it('holds no keys: no accounts, and signing methods refuse as on any node without hosted keys', async () => {
      expect(await resultOf(call, 'eth_accounts', [])).to.deep.equal([]);
      const transaction = { from: devWallet(0).address, to: devWallet(1).address, value: '0x1' };
      expect(await errorOf(call, 'eth_sendTransaction', [transaction])).to.deep.equal({
        code: -32000,
        message: 'from address does not have hosted key',
      });
      expect(await errorOf(call, 'eth_sign', [devWallet(0).address, '0xdeadbeef'])).to.deep.equal({
        code: -32000,
        message: 'address does not have hosted key',
      });
    });
  });

  describe('archive-trace', () => {
    let node: TestNode;
    let call: Call;
    let hash: string;
    const home = mkdtempSync(path.join(tmpdir(), 'evmnode-profiles-'));
    before(async () => {
      // The transfer goes in on a full node; the archive-trace node then opens the same home.
      const full = await startTestNode({ profile: 'full', home });
      hash = await minedTransfer(full.url);
      await full.stop();
      node = await startTestNode({ profile: 'archive-trace', home });
      call = overHttp(node.url);
    });
    after(async () => {
      await node.stop();
      rmSync(home, { recursive: true, force: true });
    });

    it('serves eth_ reads and traces of earlier transactions', async () => {
      const receipt = await resultOf(call, 'eth_getTransactionReceipt', [hash]);
      expect(receipt.status).to.equal('0x1');
      expect(await resultOf(call, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])).to.deep.include({
        type: 'CALL',
        from: lower(devWallet(3).address),
        to: lower(devWallet(4).address),
        value: '0x3e8',
        gasUsed: '0x5208',
      });
    });

    it('takes no transactions and holds no keys: those methods do not exist on it', async () => {
      for (const method of ['eth_sendRawTransaction', 'eth_sendTransaction', 'eth_accounts', 'txpool_content'])
        expect(await errorOf(call, method, [])).to.deep.equal(methodNotFound(method));
    });
  });
});

import { expect } from 'chai';
import { Transaction, type HDNodeWallet } from 'ethers';
import { HELD_ANSWERS_BUSY } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, lower, sign, submit } from '../support/chain-kit.js';
import { errorOf, overHttp, overWs, resultOf } from '../support/rpc-answers.js';
import { rpc } from '../support/rpc-client.js';
import { expectedTransaction } from '../support/transaction-json.js';
import { WsClient } from '../support/ws-client.js';

const RECIPIENT = '0x00000000000000000000000000000000000000dd';
/** No block for ten minutes: everything admitted stays pooled. */
const NO_BLOCKS = { consensus: { block_time: 600_000, create_empty_blocks: false } };

/** Signs and submits one transfer per nonce; the signed bytes by nonce. */
async function submitNonces(
  url: string,
  wallet: HDNodeWallet,
  nonces: readonly number[],
): Promise<Map<number, string>> {
  const raws = new Map<number, string>();
  for (const nonce of nonces) {
    const raw = await sign(wallet, { nonce, to: RECIPIENT, value: BigInt(nonce) + 1n });
    await submit(url, raw);
    raws.set(nonce, raw);
  }
  return raws;
}

/** 120 KB of call data: a transaction of four 32 KB slots, whose JSON is built again at each call. */
const LARGE_DATA = `0x${'ab'.repeat(120 * 1024)}`;

/** Signs and submits, from each wallet, `count` transactions carrying {@link LARGE_DATA}; the signed bytes by sender. */
async function submitLarge(url: string, wallets: readonly HDNodeWallet[], count: number) {
  const submitted = new Map<string, Map<number, string>>();
  for (const wallet of wallets) {
    const raws = new Map<number, string>();
    for (let nonce = 0; nonce < count; nonce++) {
      const raw = await sign(wallet, { nonce, to: RECIPIENT, data: LARGE_DATA, gasLimit: 5_000_000n });
      await submit(url, raw);
      raws.set(nonce, raw);
    }
    submitted.set(wallet.address, raws);
  }
  return submitted;
}

/** `txpool_content`'s expected `pending` entry of a sender: its transactions by decimal nonce. */
function expectedEntry(raws: Map<number, string>): Record<string, unknown> {
  return Object.fromEntries([...raws].map(([nonce, raw]) => [String(nonce), expectedTransaction(raw)]));
}

describe('txpool_content', function () {
  this.timeout(60_000);

  describe('on a node whose pool holds ready and gapped transactions of several senders', () => {
    let node: TestNode;
    const call = (method: string, params: unknown[] = []) => rpc(node.url, method, params);
    /** Signed bytes by sender (checksummed, as ethers writes it) and nonce. */
    const submitted = new Map<string, Map<number, string>>();

    before(async () => {
      node = await startTestNode({ config: NO_BLOCKS });
      expect(await resultOf(call, 'txpool_content')).to.deep.equal({ pending: {}, queued: {} });
      // Ready (0, 1, 2); gapped only (2, 10: decimal keys past 9); ready then gapped (0, then 3).
      const senders: [HDNodeWallet, number[]][] = [
        [devWallet(1), [0, 1, 2]],
        [devWallet(2), [10, 2]],
        [devWallet(3), [3, 0]],
      ];
      for (const [wallet, nonces] of senders)
        submitted.set(wallet.address, await submitNonces(node.url, wallet, nonces));
    });
    after(() => node.stop());

    it('lists every one under pending, by checksummed sender and decimal nonce, in the pending transaction shape', async () => {
      const content = await resultOf(call, 'txpool_content');
      expect(content).to.deep.equal({
        pending: Object.fromEntries([...submitted].map(([sender, raws]) => [sender, expectedEntry(raws)])),
        queued: {},
      });
      // Senders in address order, nonces in numeric order.
      const senders = [...submitted.keys()].sort((a, b) => (lower(a) < lower(b) ? -1 : 1));
      expect(Object.keys(content.pending)).to.deep.equal(senders);
      expect(Object.keys(content.pending[devWallet(2).address])).to.deep.equal(['2', '10']);
      expect(Object.keys(content.pending[devWallet(3).address])).to.deep.equal(['0', '3']);
    });

    it('answers each transaction exactly as eth_getTransactionByHash does', async () => {
      const content = await resultOf(call, 'txpool_content');
      for (const raws of submitted.values()) {
        for (const [nonce, raw] of raws) {
          const hash = Transaction.from(raw).hash!;
          // The execution-apis schema describes mined transactions only: this answer is compared as is.
          const { result: byHash } = await call('eth_getTransactionByHash', [hash]);
          expect(byHash.blockHash).to.equal(null);
          expect(content.pending[Transaction.from(raw).from!][String(nonce)]).to.deep.equal(byHash);
        }
      }
    });

    it('refuses a parameter with -32602', async () => {
      for (const params of [[1], ['latest'], [null]]) {
        expect(await errorOf(call, 'txpool_content', params)).to.deep.equal({
          code: -32602,
          message: 'too many arguments, want at most 0',
        });
      }
    });

    it('does not register txpool_contentFrom, txpool_status or txpool_inspect (-32601)', async () => {
      for (const method of ['txpool_contentFrom', 'txpool_status', 'txpool_inspect']) {
        const params = method === 'txpool_contentFrom' ? [devWallet(1).address] : [];
        expect(await errorOf(call, method, params)).to.deep.equal({
          code: -32601,
          message: `the method ${method} does not exist/is not available`,
        });
      }
    });

    it('is HTTP-only: over WebSocket it answers -32601', async () => {
      const client = await WsClient.connect(node.wsUrl);
      try {
        expect(await errorOf(overWs(client), 'txpool_content')).to.deep.equal({
          code: -32601,
          message: 'the txpool namespace is HTTP-only: call txpool_content over HTTP',
        });
      } finally {
        client.socket.close();
      }
    });
  });

  describe('with max_tx_pool_txs = 4', () => {
    let node: TestNode;
    before(async () => {
      node = await startTestNode({ config: { ...NO_BLOCKS, evm: { max_tx_pool_txs: 4 } } });
    });
    after(() => node.stop());

    it('lists the first 4 transactions by sender address, then nonce', async () => {
      const wallets = [devWallet(4), devWallet(5), devWallet(6)].sort((a, b) =>
        lower(a.address) < lower(b.address) ? -1 : 1,
      );
      const [first, second, third] = wallets as [HDNodeWallet, HDNodeWallet, HDNodeWallet];
      // Submitted from the last sender and the highest nonce first: the order of arrival does not matter.
      await submitNonces(node.url, third, [1, 0]);
      const secondRaws = await submitNonces(node.url, second, [5, 0, 1]);
      const firstRaws = await submitNonces(node.url, first, [1, 0]);
      expect(await resultOf(overHttp(node.url), 'txpool_content')).to.deep.equal({
        pending: {
          [first.address]: expectedEntry(firstRaws),
          // Its lowest nonces, so the listing shows no gap the pool does not have.
          [second.address]: expectedEntry(new Map([0, 1].map((nonce) => [nonce, secondRaws.get(nonce)!]))),
        },
        queued: {},
      });
    });
  });

  describe('on a pool of large transactions', () => {
    let node: TestNode;
    let submitted: Map<string, Map<number, string>>;
    let expected: unknown;
    before(async () => {
      // Room for one answer of twenty such transactions (5 MB), not for two.
      node = await startTestNode({ config: { ...NO_BLOCKS, evm: { max_held_answer_bytes: 8 * 1024 * 1024 } } });
      submitted = await submitLarge(node.url, [devWallet(7), devWallet(8)], 10);
      const senders = [...submitted.keys()].sort((a, b) => (lower(a) < lower(b) ? -1 : 1));
      expected = {
        pending: Object.fromEntries(senders.map((sender) => [sender, expectedEntry(submitted.get(sender)!)])),
        queued: {},
      };
    });
    after(() => node.stop());

    it('lists them exactly, call after call', async () => {
      for (let call = 0; call < 2; call++) {
        expect(await resultOf(overHttp(node.url), 'txpool_content')).to.deep.equal(expected);
      }
    });

    it('takes room for its answer among the answers held for clients: a second answer at once gets -32005', async () => {
      // Two clients at once: the second call finds the first's answer, still being built, holding the room.
      const answers = await Promise.all([rpc(node.url, 'txpool_content'), rpc(node.url, 'txpool_content')]);
      const refused = answers.filter((answer) => answer.error !== undefined);
      expect(refused.map((answer) => answer.error)).to.deep.equal([{ code: -32005, message: HELD_ANSWERS_BUSY }]);
      expect(answers.find((answer) => answer.error === undefined).result).to.deep.equal(expected);
      // The room is given back with the answer.
      expect(await resultOf(overHttp(node.url), 'txpool_content')).to.deep.equal(expected);
    });
  });

  it('answers other calls while it builds a large answer', async () => {
    const node = await startTestNode({ config: NO_BLOCKS });
    try {
      // Sixty transactions of 240 KB of JSON each: some 150 ms of building, in turns of a few.
      await submitLarge(node.url, [devWallet(6), devWallet(7), devWallet(8), devWallet(9)], 15);
      let built = false;
      const content = rpc(node.url, 'txpool_content').then((answer) => {
        built = true;
        return answer;
      });
      // One call after another until the answer comes: built in one piece, it would let none
      // through once started, and only the one or two sent before it started.
      let answeredMeanwhile = 0;
      while (!built) {
        expect((await rpc(node.url, 'eth_blockNumber')).result).to.equal('0x0');
        if (!built) answeredMeanwhile++;
      }
      expect(Object.keys((await content).result.pending)).to.have.length(4);
      expect(answeredMeanwhile).to.be.at.least(5);
    } finally {
      await node.stop();
    }
  });

  it('is absent (-32601) when the txpool plugin is not loaded', async () => {
    const node = await startTestNode({ plugins: ['eth-query', 'eth-send'] });
    try {
      expect(await errorOf(overHttp(node.url), 'txpool_content')).to.deep.equal({
        code: -32601,
        message: 'the method txpool_content does not exist/is not available',
      });
    } finally {
      await node.stop();
    }
  });
});

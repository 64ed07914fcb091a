import { expect } from 'chai';
import { JsonRpcProvider, Wallet } from 'ethers';
import { devAccounts } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import {
  blockNumber,
  devWallet,
  GWEI,
  sign,
  sleep,
  submit,
  submitTogether,
  waitForReceipt,
} from '../support/chain-kit.js';
import { nativeSigner, signNative } from '../support/native-kit.js';
import { post, rpc } from '../support/rpc-client.js';

const transfer = (from: number, nonce: number, to = Wallet.createRandom().address) =>
  sign(devWallet(from), {
    to,
    value: 1n,
    gasLimit: 21_000n,
    maxFeePerGas: 100n * GWEI,
    maxPriorityFeePerGas: 1n * GWEI,
    nonce,
    chainId: 713714n,
  });

async function transactionCounts(url: string, from: number, to: number): Promise<number[]> {
  const counts: number[] = [];
  for (let height = from; height <= to; height++) {
    const block = (await rpc(url, 'eth_getBlockByNumber', [`0x${height.toString(16)}`, false])).result;
    counts.push(block.transactions.length);
  }
  return counts;
}

describe('on-demand blocks: [consensus] block_time = "0s"', function () {
  this.timeout(60_000);
  let node: TestNode;

  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 0, create_empty_blocks: true } } });
  });
  after(() => node.stop());

  it('produces no block while no transaction arrives, even with create_empty_blocks', async () => {
    const height = await blockNumber(node.url);
    await sleep(1_000);
    expect(await blockNumber(node.url)).to.equal(height);
  });

  it('produces a block with the transaction as soon as it arrives, one per send-and-wait round trip', async () => {
    const start = await blockNumber(node.url);
    for (let nonce = 0; nonce < 5; nonce++) {
      const receipt = await waitForReceipt(node.url, await submit(node.url, await transfer(1, nonce)));
      expect([Number(receipt.blockNumber), receipt.transactionIndex]).to.deep.equal([start + nonce + 1, '0x0']);
    }
    expect(await transactionCounts(node.url, start + 1, await blockNumber(node.url))).to.deep.equal([1, 1, 1, 1, 1]);
  });

  it('puts the transactions that become ready together into one block', async () => {
    const start = await blockNumber(node.url);
    const raws = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((nonce) => transfer(2, nonce)));
    const hashes = await submitTogether(node.url, raws);
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
    expect(new Set(receipts.map((receipt) => Number(receipt.blockNumber)))).to.deep.equal(new Set([start + 1]));
    expect(await blockNumber(node.url)).to.equal(start + 1);
  });

  it('answers a receipt asked for while its block is being made with that receipt, not null', async () => {
    const start = await blockNumber(node.url);
    for (let nonce = 0; nonce < 10; nonce++) {
      const hash = await submit(node.url, await transfer(4, nonce));
      const receipt = (await rpc(node.url, 'eth_getTransactionReceipt', [hash])).result;
      expect(receipt, `receipt of transfer ${nonce}`).to.not.equal(null);
      expect([receipt.transactionHash, Number(receipt.blockNumber), receipt.status]).to.deep.equal([
        hash,
        start + nonce + 1,
        '0x1',
      ]);
    }
  });

  it("answers many receipt calls made while the block is made: the block's transaction with its receipt, others with null", async () => {
    const start = await blockNumber(node.url);
    const hash = await submit(node.url, await transfer(5, 0));
    const unknown = Wallet.createRandom().privateKey;
    const calls = Array.from({ length: 400 }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'eth_getTransactionReceipt',
      params: [id % 2 === 0 ? hash : unknown],
    }));
    const answers = JSON.parse((await post(node.url, JSON.stringify(calls))).text) as { id: number; result: any }[];
    expect(answers).to.have.length(400);
    for (const { id, result } of answers) {
      if (id % 2 === 1) expect(result, `call ${id}`).to.equal(null);
      else
        expect([result?.transactionHash, Number(result?.blockNumber)], `call ${id}`).to.deep.equal([hash, start + 1]);
    }
  });

  it('answers ethers as an automining dev node does: wait() resolves with the mined receipt at its first look', async function () {
    // ethers looks for the receipt once, then only at its next poll: a miss would outlast the test.
    this.timeout(20_000);
    const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, pollingInterval: 60_000 });
    const wallet = devWallet(3).connect(provider);
    const sent = await wallet.sendTransaction({ to: Wallet.createRandom().address, value: 5n });
    const receipt = await sent.wait();
    expect(receipt?.status).to.equal(1);
    expect(receipt?.blockNumber).to.equal(await blockNumber(node.url));
    provider.destroy();
  });

  it('produces a block for a native transaction too', async () => {
    const start = await blockNumber(node.url);
    const signer = await nativeSigner(devAccounts(5)[4]!.privateKey);
    const account = (await node.node.native.account(signer.address))!;
    const raw = await signNative(signer, {
      messages: [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: { fromAddress: signer.address, toAddress: signer.address, amount: [{ denom: 'utest', amount: '1' }] },
        },
      ],
      sequence: account.sequence,
      accountNumber: account.accountNumber,
    });
    const checked = await node.node.native.submit(raw);
    expect(checked.code, checked.log).to.equal(0);
    const included = (await node.node.native.whenIncluded(checked.hash, 10_000))!;
    expect([included.code, included.height]).to.deep.equal([0, start + 1]);
  });
});

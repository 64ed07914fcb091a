import { expect } from 'chai';
import { Transaction, Wallet, getAddress, hexlify, randomBytes, type HDNodeWallet } from 'ethers';
import type { Chain } from '@evmnode/core/internal';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import {
  GWEI,
  SdkCode,
  devWallet,
  expectRejection,
  lower,
  sendRaw,
  sign,
  sleep,
  submit,
  waitForReceipt,
} from '../support/chain-kit.js';
import { post, rpc } from '../support/rpc-client.js';

/** A fresh address to send to. */
const someone = () => getAddress(hexlify(randomBytes(20)));

/** A transfer of `wallet` at `nonce` tipping `tipGwei` (fee cap 10 gwei, so the tip is what it pays above the base fee). */
const transfer = (wallet: HDNodeWallet, nonce: number, tipGwei = 1n) =>
  sign(wallet, { nonce, to: someone(), maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: tipGwei * GWEI });

/** Whether the node still knows a transaction (pooled or mined). */
async function known(url: string, raw: string): Promise<boolean> {
  return (await rpc(url, 'eth_getTransactionByHash', [Transaction.from(raw).hash])).result !== null;
}

/** Submits transactions that must all be admitted, in order. */
async function submitAll(url: string, raws: readonly string[]): Promise<void> {
  for (const raw of raws) await submit(url, raw);
}

describe('pool limits: one sender cannot lock others out ([mempool] account_queue)', function () {
  this.timeout(120_000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 300 } } });
  });
  after(() => node.stop());

  it('holds 64 far-future nonces of one sender, refuses the rest with account limit exceeded, and still serves another sender', async () => {
    const chain = node.node.chain;
    const hog = devWallet(0);
    // 1,000 far-future nonces in one batch (the batch limit); the state nonce is 0.
    const raws = await Promise.all(Array.from({ length: 1000 }, (_, index) => transfer(hog, 1000 + index)));
    const { text } = await post(
      node.url,
      JSON.stringify(raws.map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }))),
    );
    const answers = JSON.parse(text) as any[];
    const admitted = answers.filter((answer) => answer.error === undefined);
    expect(admitted).to.have.length(64);
    for (const answer of answers.filter((refused) => refused.error !== undefined)) {
      expectRejection(answer, 'account limit exceeded: queued 64 txs', SdkCode.MempoolIsFull);
    }
    expect(chain.pool.size).to.equal(64);
    expect(chain.pool.queued).to.equal(64);

    const asked = performance.now();
    expect((await rpc(node.url, 'eth_chainId')).result).to.equal('0xae3f2');
    expect(performance.now() - asked).to.be.below(1000);
    const other = await submit(node.url, await transfer(devWallet(1), 0));
    expect((await waitForReceipt(node.url, other)).status).to.equal('0x1');
    // The hog's queued transactions still wait; a replacement of one of them is still taken.
    expect(chain.pool.queued).to.equal(64);
    const replaced = 1000 + (admitted[0].id as number);
    await submit(
      node.url,
      await sign(hog, { nonce: replaced, to: someone(), maxFeePerGas: 11n * GWEI, maxPriorityFeePerGas: 2n * GWEI }),
    );
    expect(chain.pool.queued).to.equal(64);
  });
});

describe('pool limits: queued transactions in all ([mempool] global_queue)', () => {
  let node: TestNode;
  before(async () => {
    // No block for a minute: the pool only changes by admission.
    node = await startTestNode({ config: { mempool: { global_queue: 128 }, consensus: { block_time: 60_000 } } });
  });
  after(() => node.stop());

  it('makes the largest queue give its last transaction to a sender holding fewer; txpool is full otherwise', async () => {
    const chain: Chain = node.node.chain;
    const [first, second, third] = [devWallet(0), devWallet(1), devWallet(2)];
    const firstRaws = await Promise.all(Array.from({ length: 64 }, (_, index) => transfer(first, index + 1)));
    await submitAll(node.url, firstRaws);
    await submitAll(node.url, await Promise.all(Array.from({ length: 64 }, (_, index) => transfer(second, index + 1))));
    expect(chain.pool.queued).to.equal(128);

    await submit(node.url, await transfer(third, 1));
    expect(chain.pool.queued).to.equal(128);
    expect(await known(node.url, firstRaws[63]!)).to.equal(false);
    expect(await known(node.url, firstRaws[62]!)).to.equal(true);

    // 63 against the other's 64: neither gives way to the other.
    const answer = await sendRaw(node.url, firstRaws[63]!);
    expect(answer.error).to.deep.equal({ code: -32005, message: 'txpool is full' });
    expect(chain.pool.queued).to.equal(128);
  });
});

describe('pool limits: queued transactions expire ([mempool] lifetime)', function () {
  this.timeout(60_000);
  const LIFETIME_MS = 3000;
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      config: { mempool: { lifetime: LIFETIME_MS }, consensus: { block_time: 200 } },
    });
  });
  after(() => node.stop());

  it("drops a sender's queued transactions once they waited a lifetime without one becoming ready", async () => {
    const chain = node.node.chain;
    const hog = devWallet(3);
    // Signed before the clock starts: on a loaded machine, signing and sending took over a second.
    const queued = await Promise.all(Array.from({ length: 64 }, (_, index) => transfer(hog, index + 5)));
    const beyondLimit = await transfer(hog, 100);
    const started = Date.now();
    await submitAll(node.url, queued);
    expect(chain.pool.queued).to.equal(64);
    expectRejection(
      await sendRaw(node.url, beyondLimit),
      'account limit exceeded: queued 64 txs',
      SdkCode.MempoolIsFull,
    );
    while (chain.pool.size > 0) {
      expect(Date.now() - started, 'queued transactions never expired').to.be.below(20_000);
      await sleep(50);
    }
    expect(Date.now() - started).to.be.at.least(LIFETIME_MS);
    expect(await known(node.url, queued[0]!)).to.equal(false);
    expect(chain.pool.queued).to.equal(0);
    // Its limit is free again, and its ready transactions are taken as ever.
    await submit(node.url, await transfer(hog, 100));
    const ready = await submit(node.url, await transfer(hog, 0));
    expect((await waitForReceipt(node.url, ready)).status).to.equal('0x1');
  });
});

describe('pool limits: a full pool evicts the cheapest ([mempool] size)', function () {
  this.timeout(60_000);
  let node: TestNode;
  let fillers: string[];
  before(async () => {
    node = await startTestNode({ config: { mempool: { size: 6 }, consensus: { block_time: 300 } } });
    // Queued transactions (nonces 1 and 2 of three senders) fill it: no block takes them.
    fillers = [];
    for (const [index, tip] of [1n, 2n, 3n].entries()) {
      fillers.push(await transfer(devWallet(index), 1, tip), await transfer(devWallet(index), 2, tip));
    }
    await submitAll(node.url, fillers);
  });
  after(() => node.stop());

  it('refuses a transaction that pays no more than the cheapest with transaction underpriced', async () => {
    expect(node.node.chain.pool.size).to.equal(6);
    expectRejection(
      await sendRaw(node.url, await transfer(devWallet(3), 0, 1n)),
      'transaction underpriced',
      SdkCode.InsufficientFee,
    );
    expect(node.node.chain.pool.size).to.equal(6);
  });

  it('lets a better-paying transaction of another sender evict the cheapest, and includes it', async () => {
    const hash = await submit(node.url, await transfer(devWallet(3), 0, 2n));
    // The cheapest sender's last transaction went, which leaves it no gap.
    expect(await known(node.url, fillers[1]!)).to.equal(false);
    expect(await known(node.url, fillers[0]!)).to.equal(true);
    expect((await waitForReceipt(node.url, hash)).status).to.equal('0x1');
    expect(node.node.chain.pool.size).to.equal(5);
  });
});

describe('pool limits: a full pool keeps account_slots per sender ([mempool] account_slots)', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      config: { mempool: { size: 6, account_slots: 2 }, consensus: { block_time: 60_000 } },
    });
  });
  after(() => node.stop());

  it('makes a sender above it give way to one below it, whatever they pay, but never to a queued one', async () => {
    const chain = node.node.chain;
    const [rich, modest] = [devWallet(0), devWallet(1)];
    const richRaws = await Promise.all(Array.from({ length: 6 }, (_, nonce) => transfer(rich, nonce, 5n)));
    await submitAll(node.url, richRaws);

    await submit(node.url, await transfer(modest, 0, 1n));
    expect(await known(node.url, richRaws[5]!)).to.equal(false);
    // A gapped transaction does not evict a ready one.
    expectRejection(
      await sendRaw(node.url, await transfer(modest, 2, 1n)),
      'future transaction tries to replace pending',
      SdkCode.MempoolIsFull,
    );
    await submit(node.url, await transfer(modest, 1, 1n));
    expect(await known(node.url, richRaws[4]!)).to.equal(false);
    // At its share, price decides again.
    expectRejection(
      await sendRaw(node.url, await transfer(modest, 2, 1n)),
      'transaction underpriced',
      SdkCode.InsufficientFee,
    );
    expect(chain.pool.size).to.equal(6);
  });
});

describe('pool limits: room counted in 32 KB slots ([mempool] size)', () => {
  let node: TestNode;
  /** The large transaction the first test admits. */
  let newcomer: string;
  before(async () => {
    node = await startTestNode({ config: { mempool: { size: 8 }, consensus: { block_time: 60_000 } } });
  });
  after(() => node.stop());

  /** A transaction of 100 KB of call data: four slots. */
  const large = (wallet: HDNodeWallet, tipGwei: bigint, nonce = 0) =>
    sign(wallet, {
      nonce,
      to: someone(),
      data: `0x${'00'.repeat(100 * 1024)}`,
      gasLimit: 1_100_000n,
      // Above the transfers' fee cap, so that one may replace them.
      maxFeePerGas: 20n * GWEI,
      maxPriorityFeePerGas: tipGwei * GWEI,
    });

  it('evicts as many of the cheapest as a large newcomer needs, or none of them when it pays too little', async () => {
    const pool = node.node.chain.pool;
    const cheap = await transfer(devWallet(0), 0, 1n);
    const dearer = await Promise.all(Array.from({ length: 7 }, (_, nonce) => transfer(devWallet(1), nonce, 3n)));
    await submitAll(node.url, [cheap, ...dearer]);
    expect([pool.size, pool.slots]).to.deep.equal([8, 8]);

    // Room for it would take the cheapest and one that pays more than it: it takes neither.
    expectRejection(
      await sendRaw(node.url, await large(devWallet(2), 2n)),
      'transaction underpriced',
      SdkCode.InsufficientFee,
    );
    expect([pool.size, pool.slots]).to.deep.equal([8, 8]);
    expect(await known(node.url, cheap)).to.equal(true);

    newcomer = await large(devWallet(2), 4n);
    await submit(node.url, newcomer);
    expect([pool.size, pool.slots]).to.deep.equal([5, 8]);
    const kept = await Promise.all([cheap, ...dearer, newcomer].map((raw) => known(node.url, raw)));
    expect(kept).to.deep.equal([false, true, true, true, true, false, false, false, true]);
  });

  it('makes a replacement that takes more slots than the transaction it replaces find room for them', async () => {
    const pool = node.node.chain.pool;
    // Three more slots: the cheapest other sender's last transaction is the large one, at 4 gwei.
    const replacement = await large(devWallet(1), 5n, 3);
    await submit(node.url, replacement);
    expect([pool.size, pool.slots]).to.deep.equal([4, 7]);
    expect(await known(node.url, newcomer)).to.equal(false);
    expect(await known(node.url, replacement)).to.equal(true);
  });
});

describe("pool limits: a sender's pooled transactions count against its balance", function () {
  this.timeout(60_000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 300 } } });
  });
  after(() => node.stop());

  it('refuses a transaction, or a replacement, that its pooled ones leave the balance short for', async () => {
    // Two transfers' worth at a fee cap of 10 gwei.
    const oneTransfer = 21_000n * 10n * GWEI;
    const holder = Wallet.createRandom();
    await waitForReceipt(
      node.url,
      await submit(node.url, await sign(devWallet(5), { nonce: 0, to: holder.address, value: 2n * oneTransfer })),
    );
    // Gapped, so that no block includes them while the test runs.
    await submitAll(node.url, [await transfer(holder, 1), await transfer(holder, 2)]);
    expectRejection(
      await sendRaw(node.url, await transfer(holder, 3)),
      `insufficient funds for gas * price + value: balance ${2n * oneTransfer}, queued cost ${2n * oneTransfer}, ` +
        `tx cost ${oneTransfer}, overshot ${oneTransfer}`,
      SdkCode.InsufficientFunds,
    );
    // A replacement at an 11 gwei fee cap takes 21,000 x 1 gwei more than the one it replaces.
    const bump = 21_000n * GWEI;
    const replacement = await sign(holder, {
      nonce: 2,
      to: someone(),
      maxFeePerGas: 11n * GWEI,
      maxPriorityFeePerGas: 2n * GWEI,
    });
    expectRejection(
      await sendRaw(node.url, replacement),
      `insufficient funds for gas * price + value: balance ${2n * oneTransfer}, queued cost ${2n * oneTransfer}, ` +
        `tx bumped ${bump}, overshot ${bump}`,
      SdkCode.InsufficientFunds,
    );
    expect(node.node.chain.pool.contentFrom(lower(holder.address) as `0x${string}`).queued).to.have.length(2);
  });
});

import { expect } from 'chai';
import {
  ContractFactory,
  Interface,
  ZeroAddress,
  getAddress,
  getCreateAddress,
  hexlify,
  id,
  randomBytes,
  toBeHex,
  zeroPadValue,
} from 'ethers';
import type { BlockRecord, CommittedBlock } from '@evmnode/core';
import type { Chain } from '@evmnode/core/internal';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { testToken } from '@evmnode/tools/contracts/test-token';
import {
  BLOCK_GAS_LIMIT,
  DEV_BALANCE,
  ETHER,
  FEE_COLLECTOR,
  GWEI,
  balanceOf,
  blockNumber,
  devWallet,
  expectedNextBaseFee,
  lower,
  nextBlocks,
  quantity,
  receiptOf,
  sign,
  submit,
  untilHeight,
  waitForReceipt,
} from '../support/chain-kit.js';
import { expectValidResult } from '../support/openrpc.js';
import { post, rpc } from '../support/rpc-client.js';

const someone = () => getAddress(hexlify(randomBytes(20)));
const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');
/** Init code that jumps to itself forever: a creation that burns all its gas. */
const INFINITE_LOOP = '0x5b600056';

describe('chain blocks: execution, receipts, fees, base fee and the block event bus', function () {
  this.timeout(60_000);
  let node: TestNode;
  let chain: Chain;
  /** Every block onBlock delivered, in delivery order, with what the store held for it at that moment. */
  const published: { committed: CommittedBlock; headAtPublish: number; stored: Promise<BlockRecord | undefined> }[] =
    [];

  before(async () => {
    node = await startTestNode({ config: { consensus: { block_time: 250 } } });
    chain = node.node.chain;
    chain.events.onBlock((committed) =>
      published.push({
        committed,
        headAtPublish: chain.head().height,
        stored: chain.store.blockAt(committed.block.height),
      }),
    );
  });
  after(() => node.stop());

  const block = async (height: number): Promise<BlockRecord> => {
    const record = await chain.store.blockAt(height);
    expect(record, `block ${height}`).to.not.equal(undefined);
    return record!;
  };
  /** Waits for a block, so that what is sent next shares one block (250ms apart). */
  const freshBlock = () => nextBlocks(chain).then(() => undefined);
  const fee = (receipt: any): bigint => BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);

  describe('an ETH transfer', () => {
    const sender = devWallet(1);
    const receiver = someone();
    const value = 1_500_000_000_000_000_000n;
    let receipt: any;

    before(async () => {
      const raw = await sign(sender, {
        nonce: 0,
        to: receiver,
        value,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI / 2n,
      });
      receipt = await waitForReceipt(node.url, await submit(node.url, raw));
    });

    it('has a receipt with the exact fields of a successful transfer', async () => {
      const height = Number(receipt.blockNumber);
      const included = await block(height);
      expect(included.transactions).to.deep.equal([receipt.transactionHash]);
      // base fee + min(tip, fee cap - base fee)
      const effective = BigInt(included.baseFeePerGas) + GWEI / 2n;
      expect(receipt).to.deep.equal({
        blockHash: included.hash,
        blockNumber: quantity(height),
        contractAddress: null,
        cumulativeGasUsed: '0x5208',
        effectiveGasPrice: quantity(effective),
        from: lower(sender.address),
        gasUsed: '0x5208',
        logs: [],
        logsBloom: `0x${'00'.repeat(256)}`,
        status: '0x1',
        to: lower(receiver),
        transactionHash: receipt.transactionHash,
        transactionIndex: '0x0',
        type: '0x2',
      });
    });

    it('moves value from sender to receiver and pays gasUsed * effectiveGasPrice to the fee collector', async () => {
      const height = Number(receipt.blockNumber);
      const [before, after] = [quantity(height - 1), quantity(height)];
      const paid = fee(receipt);
      expect(paid).to.equal(21_000n * 1_500_000_000n);
      expect(await balanceOf(node.url, sender.address, before)).to.equal(DEV_BALANCE);
      expect(await balanceOf(node.url, sender.address, after)).to.equal(DEV_BALANCE - value - paid);
      expect(await balanceOf(node.url, receiver, before)).to.equal(0n);
      expect(await balanceOf(node.url, receiver, after)).to.equal(value);
      const collected =
        (await balanceOf(node.url, FEE_COLLECTOR, after)) - (await balanceOf(node.url, FEE_COLLECTOR, before));
      expect(collected).to.equal(paid);
      expect(await balanceOf(node.url, receiver)).to.equal(value);
      expect(await balanceOf(node.url, sender.address)).to.equal(DEV_BALANCE - value - paid);
    });

    it('serves balances at past heights by number, hash, EIP-1898 object and tag (archive)', async () => {
      const height = Number(receipt.blockNumber);
      const parent = await block(height - 1);
      const refsAt = (hash: string, number: number) => [
        quantity(number),
        hash,
        { blockHash: hash },
        { blockHash: hash, requireCanonical: true },
        { blockNumber: quantity(number) },
      ];
      for (const ref of refsAt(receipt.blockHash, height)) {
        expect(await balanceOf(node.url, receiver, ref), JSON.stringify(ref)).to.equal(value);
      }
      for (const ref of refsAt(parent.hash, height - 1)) {
        expect(await balanceOf(node.url, receiver, ref), JSON.stringify(ref)).to.equal(0n);
        expect(await balanceOf(node.url, sender.address, ref), JSON.stringify(ref)).to.equal(DEV_BALANCE);
      }
      expect(await balanceOf(node.url, sender.address, 'earliest')).to.equal(DEV_BALANCE);
      expect(await balanceOf(node.url, receiver, '0x0')).to.equal(0n);
      for (const tag of ['latest', 'safe', 'finalized', 'pending']) {
        expect(await balanceOf(node.url, receiver, tag), tag).to.equal(value);
      }
    });

    it('refuses a height above the head', async () => {
      const answer = await rpc(node.url, 'eth_getBalance', [receiver, '0xffffff']);
      expect(answer.error.code).to.equal(-32000);
      const match = /^requested height 16777215 is not yet available; safe latest is (\d+)$/.exec(answer.error.message);
      expect(match, answer.error.message).to.not.equal(null);
      expect(Number(match![1])).to.be.at.least(Number(receipt.blockNumber));
    });
  });

  it("keeps a head state handed out at its block's root after the head moves, and serves the new head from a new one", async () => {
    const receiver = someone();
    const before = chain.head();
    const handedOut = await chain.stateAt(before.height);
    const raw = await sign(devWallet(5), { nonce: 0, to: receiver, value: 7n });
    const receipt = await waitForReceipt(node.url, await submit(node.url, raw));
    const included = Number(receipt.blockNumber);
    expect(included).to.be.greaterThan(before.height);

    // A read still running on the state it started with finishes on that block's root, and what
    // it caches there is never taken for a later head's.
    expect(hexlify(await handedOut.getStateRoot())).to.equal(before.stateRoot);
    expect(await chain.stateAt(chain.head().height)).to.not.equal(handedOut);
    expect((await chain.accountAt(receiver as `0x${string}`, included)).balance).to.equal(7n);
    expect(await balanceOf(node.url, receiver)).to.equal(7n);
  });

  it('holds a nonce gap until it is filled, then mines the run in nonce order', async () => {
    const sender = devWallet(2);
    const raws = await Promise.all([0, 1, 2].map((nonce) => sign(sender, { nonce, to: someone(), value: 1n })));
    const hashes = [await submit(node.url, raws[2]!), await submit(node.url, raws[1]!)];
    await nextBlocks(chain, 3);
    for (const hash of hashes) expect(await receiptOf(node.url, hash)).to.equal(null);
    expect(chain.pool.size).to.equal(2);
    expect(await chain.accountAtHead(lower(sender.address) as `0x${string}`)).to.deep.equal({
      nonce: 0n,
      balance: DEV_BALANCE,
    });

    const first = await submit(node.url, raws[0]!);
    const receipts = [];
    for (const hash of [first, hashes[1]!, hashes[0]!]) receipts.push(await waitForReceipt(node.url, hash));
    expect(
      receipts.map((receipt) => [receipt.blockNumber, receipt.transactionIndex, receipt.cumulativeGasUsed]),
    ).to.deep.equal([
      [receipts[0].blockNumber, '0x0', '0x5208'],
      [receipts[0].blockNumber, '0x1', '0xa410'],
      [receipts[0].blockNumber, '0x2', '0xf618'],
    ]);
    expect(chain.pool.size).to.equal(0);
    expect((await chain.accountAtHead(lower(sender.address) as `0x${string}`)).nonce).to.equal(3n);
  });

  it('charges an out-of-gas creation all its gas, with status 0x0', async () => {
    const sender = devWallet(3);
    const raw = await sign(sender, {
      nonce: 0,
      to: null,
      data: INFINITE_LOOP,
      gasLimit: 100_000n,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
    const receipt = await waitForReceipt(node.url, await submit(node.url, raw));
    expect(receipt.status).to.equal('0x0');
    expect(receipt.gasUsed).to.equal('0x186a0');
    expect(receipt.logs).to.deep.equal([]);
    // geth sets contractAddress on every creation receipt, failed or not.
    expect(receipt.contractAddress).to.equal(lower(getCreateAddress({ from: sender.address, nonce: 0 })));
    expect(receipt).to.have.property('to', null);
    const height = Number(receipt.blockNumber);
    expect(
      (await balanceOf(node.url, sender.address, quantity(height - 1))) -
        (await balanceOf(node.url, sender.address, quantity(height))),
    ).to.equal(100_000n * BigInt(receipt.effectiveGasPrice));
    expect(await chain.accountAtHead(lower(sender.address) as `0x${string}`)).to.deep.equal({
      nonce: 1n,
      balance: DEV_BALANCE - fee(receipt),
    });
  });

  describe('an ERC20 (TestToken)', () => {
    const deployer = devWallet(6);
    const supply = 1_000_000n * ETHER;
    let token: Interface;
    let deployment: any;
    let address: string;

    before(async () => {
      const { abi, bytecode } = testToken();
      token = new Interface(abi);
      const { data } = await new ContractFactory(abi, bytecode).getDeployTransaction('Test', 'TST', supply);
      const raw = await sign(deployer, {
        nonce: 0,
        to: null,
        data,
        gasLimit: 2_000_000n,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
      });
      deployment = await waitForReceipt(node.url, await submit(node.url, raw));
      address = lower(getCreateAddress({ from: deployer.address, nonce: 0 }));
    });

    it('deploys: the receipt has contractAddress, to null, and the constructor Transfer log', async () => {
      expect(deployment.status).to.equal('0x1');
      expect(deployment.contractAddress).to.equal(address);
      expect(deployment).to.have.property('to', null);
      expect(Number(deployment.gasUsed)).to.be.within(100_000, 2_000_000 - 1);
      expect(deployment.logs).to.deep.equal([
        {
          address,
          topics: [TRANSFER_TOPIC, zeroPadValue(ZeroAddress, 32), zeroPadValue(lower(deployer.address), 32)],
          data: zeroPadValue(toBeHex(supply), 32),
          blockNumber: deployment.blockNumber,
          transactionHash: deployment.transactionHash,
          transactionIndex: '0x0',
          blockHash: deployment.blockHash,
          logIndex: '0x0',
          removed: false,
        },
      ]);
      expect(deployment.logsBloom).to.not.equal(`0x${'00'.repeat(256)}`);
      const height = Number(deployment.blockNumber);
      expect((await block(height)).logsBloom).to.equal(deployment.logsBloom);
    });

    it('transfers: two in one block have block-global logIndex 0x0 and 0x1 and decode to Transfer(from, to, value)', async () => {
      const recipients = [someone(), someone()];
      const amounts = [100n * ETHER, 250n * ETHER];
      const raws = await Promise.all(
        [0, 1].map((index) =>
          sign(deployer, {
            nonce: 1 + index,
            to: address,
            data: token.encodeFunctionData('transfer', [recipients[index], amounts[index]]),
            gasLimit: 100_000n,
            maxFeePerGas: 10n * GWEI,
            maxPriorityFeePerGas: GWEI,
          }),
        ),
      );
      await freshBlock();
      const hashes = [await submit(node.url, raws[0]!), await submit(node.url, raws[1]!)];
      const receipts = [await waitForReceipt(node.url, hashes[0]!), await waitForReceipt(node.url, hashes[1]!)];
      expect(receipts[1].blockNumber).to.equal(receipts[0].blockNumber);
      expect(receipts[1].blockHash).to.equal(receipts[0].blockHash);
      expect(BigInt(receipts[1].cumulativeGasUsed)).to.equal(BigInt(receipts[0].gasUsed) + BigInt(receipts[1].gasUsed));
      receipts.forEach((receipt, index) => {
        expect(receipt.status).to.equal('0x1');
        expect(receipt.to).to.equal(address);
        expect(receipt).to.have.property('contractAddress', null);
        expect(receipt.transactionIndex).to.equal(quantity(index));
        expect(receipt.logs).to.have.length(1);
        const [log] = receipt.logs;
        expect(log).to.include({
          address,
          logIndex: quantity(index),
          transactionIndex: quantity(index),
          transactionHash: hashes[index],
          blockHash: receipt.blockHash,
          blockNumber: receipt.blockNumber,
          removed: false,
        });
        const parsed = token.parseLog(log)!;
        expect(parsed.name).to.equal('Transfer');
        expect([parsed.args[0], parsed.args[1], parsed.args[2]]).to.deep.equal([
          deployer.address,
          recipients[index],
          amounts[index],
        ]);
      });
    });

    it('a reverted transfer gets status 0x0, no logs, and pays for the gas it used', async () => {
      const sender = devWallet(4);
      const raw = await sign(sender, {
        nonce: 0,
        to: address,
        data: token.encodeFunctionData('transfer', [someone(), 1n]),
        gasLimit: 200_000n,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
      });
      const receipt = await waitForReceipt(node.url, await submit(node.url, raw));
      expect(receipt.status).to.equal('0x0');
      expect(receipt.logs).to.deep.equal([]);
      expect(receipt.logsBloom).to.equal(`0x${'00'.repeat(256)}`);
      // A revert returns the unused gas.
      expect(Number(receipt.gasUsed)).to.be.within(21_000 + 1, 200_000 - 1);
      const height = Number(receipt.blockNumber);
      expect(await balanceOf(node.url, sender.address, quantity(height - 1))).to.equal(DEV_BALANCE);
      expect(await balanceOf(node.url, sender.address, quantity(height))).to.equal(DEV_BALANCE - fee(receipt));
    });
  });

  it('raises the base fee by exactly 1.89% after a full block, lowers it 0.39% per empty block to 1 gwei, and holds fee caps below it', async () => {
    const burner = devWallet(7);
    const cheap = devWallet(8);
    const loop = await sign(burner, {
      nonce: 0,
      to: null,
      data: INFINITE_LOOP,
      gasLimit: BLOCK_GAS_LIMIT,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
    // Pays exactly 1 gwei: admitted while the next base fee is 1 gwei, it cannot pay the raised one.
    const waiting = await sign(cheap, {
      nonce: 0,
      to: someone(),
      value: 1n,
      maxFeePerGas: GWEI,
      maxPriorityFeePerGas: 0n,
    });
    await freshBlock();
    expect(chain.nextBaseFee()).to.equal(GWEI);
    // One HTTP batch: both are pooled before the next block.
    const { text } = await post(
      node.url,
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [loop] },
        { jsonrpc: '2.0', id: 2, method: 'eth_sendRawTransaction', params: [waiting] },
      ]),
    );
    const answers = JSON.parse(text) as any[];
    const [loopHash, waitingHash] = [1, 2].map((n) => answers.find((answer) => answer.id === n).result as string);
    for (const hash of [loopHash, waitingHash]) expectValidResult('eth_sendRawTransaction', hash);

    const full = await waitForReceipt(node.url, loopHash!);
    expect(full.status).to.equal('0x0');
    expect(full.gasUsed).to.equal(quantity(BLOCK_GAS_LIMIT));
    expect(full.cumulativeGasUsed).to.equal(quantity(BLOCK_GAS_LIMIT));
    const height = Number(full.blockNumber);
    const fullBlock = await block(height);
    expect(fullBlock.transactions).to.deep.equal([loopHash]);
    expect(fullBlock.gasUsed).to.equal(quantity(BLOCK_GAS_LIMIT));
    expect(BigInt(fullBlock.baseFeePerGas)).to.equal(GWEI);
    expect(await receiptOf(node.url, waitingHash!)).to.equal(null);

    // The waiting transaction is mined in the first block whose base fee is back to 1 gwei.
    const mined = await waitForReceipt(node.url, waitingHash!);
    const minedAt = Number(mined.blockNumber);
    let expected = expectedNextBaseFee(GWEI, BLOCK_GAS_LIMIT, BLOCK_GAS_LIMIT);
    expect(expected).to.equal(1_018_900_000n); // 1 gwei * 1.0189
    const bases: bigint[] = [];
    for (let h = height + 1; h < minedAt; h++) {
      const empty = await block(h);
      expect(empty.transactions, `block ${h}`).to.deep.equal([]);
      expect(empty.gasUsed).to.equal('0x0');
      bases.push(BigInt(empty.baseFeePerGas));
      expect(BigInt(empty.baseFeePerGas), `base fee of block ${h}`).to.equal(expected);
      expected = expectedNextBaseFee(expected, 0n, BLOCK_GAS_LIMIT);
    }
    expect(bases).to.deep.equal([1_018_900_000n, 1_014_926_290n, 1_010_968_078n, 1_007_025_303n, 1_003_097_905n]);
    expect(minedAt).to.equal(height + 6);
    expect(BigInt((await block(minedAt)).baseFeePerGas)).to.equal(GWEI);
    expect(mined.status).to.equal('0x1');
    expect(mined.effectiveGasPrice).to.equal(quantity(GWEI));
  });

  it('gives every block the base fee the rule derives from its parent, and links parents by hash', async () => {
    const head = chain.head().height;
    let parent = await block(0);
    expect(parent.baseFeePerGas).to.equal(quantity(GWEI));
    for (let height = 1; height <= head; height++) {
      const current = await block(height);
      const expected =
        height === 1
          ? GWEI
          : expectedNextBaseFee(BigInt(parent.baseFeePerGas), BigInt(parent.gasUsed), BLOCK_GAS_LIMIT);
      expect(BigInt(current.baseFeePerGas), `base fee of block ${height}`).to.equal(expected);
      expect(current.gasLimit).to.equal(quantity(BLOCK_GAS_LIMIT));
      expect(current.header.parentHash, `parent of block ${height}`).to.equal(parent.hash);
      parent = current;
    }
  });

  it('onBlock delivers every block exactly once, in height order, once it is durable', async () => {
    await nextBlocks(chain);
    const head = chain.head().height;
    const heights = published.map(({ committed }) => committed.block.height);
    const first = heights[0]!;
    expect(first).to.be.at.most(2);
    expect(heights).to.deep.equal(Array.from({ length: head - first + 1 }, (_, index) => first + index));
    expect(await blockNumber(node.url)).to.be.at.least(head);
    let fees = 0n;
    for (const { committed, headAtPublish, stored } of published) {
      const { block: delivered, receipts } = committed;
      expect(headAtPublish).to.equal(delivered.height);
      expect(await stored, `block ${delivered.height} stored when published`).to.deep.equal(delivered);
      expect(receipts.map((receipt) => receipt.transactionHash)).to.deep.equal(delivered.transactions);
      expect(delivered.gasUsed).to.equal(receipts.at(-1)?.cumulativeGasUsed ?? '0x0');
      for (const [index, receipt] of receipts.entries()) {
        expect(receipt.transactionIndex).to.equal(index);
        const served = await receiptOf(node.url, receipt.transactionHash);
        expect(served.blockHash).to.equal(delivered.hash);
        fees += BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
      }
    }
    // The fee collector holds exactly the fees of every transaction so far (there were none before `first`).
    expect(await balanceOf(node.url, FEE_COLLECTOR, quantity(head))).to.equal(fees);
    await untilHeight(chain, head + 2);
    expect(published.map(({ committed }) => committed.block.height).slice(-3)).to.deep.equal([
      head,
      head + 1,
      head + 2,
    ]);
  });
});

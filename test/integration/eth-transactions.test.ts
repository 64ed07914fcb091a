import { expect } from 'chai';
import { ContractFactory, Interface, Transaction, Wallet, getBytes, getCreateAddress, sha256 } from 'ethers';
import { wrapEvmTransaction } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { testToken } from '@evmnode/tools/contracts/test-token';
import {
  ETHER,
  GWEI,
  devWallet,
  lower,
  nextBlocks,
  quantity,
  sign,
  signEachType,
  submit,
  submitTogether,
  waitForReceipt,
} from '../support/chain-kit.js';
import { errorOf, overHttp, overWs, resultOf, type Call } from '../support/rpc-answers.js';
import { expectedTransaction, type MinedAt } from '../support/transaction-json.js';
import { WsClient } from '../support/ws-client.js';

const RECIPIENT = '0x00000000000000000000000000000000000000dd';
const EMPTY_BLOOM = `0x${'00'.repeat(256)}`;
const UNKNOWN_HASH = `0x${'ab'.repeat(32)}`;
/** Init code that jumps to itself forever: a creation that burns all its gas. */
const INFINITE_LOOP = '0x5b600056';

describe('eth transactions: lookups, receipts, nonces and VM errors', function () {
  this.timeout(60_000);
  let node: TestNode;
  let call: Call;
  /** One transaction of each type (0, 1, 2, 4), mined together, in nonce order. */
  const typed = { sender: devWallet(1), raws: [] as string[], hashes: [] as string[], block: undefined as any };
  /** A token deployment, a reverted token transfer and an out-of-gas creation, mined together. */
  const failing = { sender: devWallet(2), raws: [] as string[], hashes: [] as string[] };

  /** Where the `index`-th transaction of `block` was mined. */
  const minedAt = (block: any, index: number): MinedAt => ({
    blockHash: block.hash,
    blockNumber: Number(block.number),
    blockTimestamp: block.timestamp,
    index,
    baseFee: BigInt(block.baseFeePerGas),
  });
  const transactionByHash = (hash: string) => resultOf(call, 'eth_getTransactionByHash', [hash]);
  const receiptOf = (hash: string) => resultOf(call, 'eth_getTransactionReceipt', [hash]);
  const countOf = (address: string, block: unknown) => resultOf(call, 'eth_getTransactionCount', [address, block]);

  before(async () => {
    // 500 ms blocks, only when transactions arrive: a test can act between two blocks.
    node = await startTestNode({ config: { consensus: { block_time: 500, create_empty_blocks: false } } });
    call = overHttp(node.url);

    typed.raws = await signEachType(typed.sender, 0, RECIPIENT, Wallet.createRandom());
    typed.hashes = await submitTogether(node.url, typed.raws);
    const [first] = await Promise.all(typed.hashes.map((hash) => waitForReceipt(node.url, hash)));
    typed.block = await resultOf(call, 'eth_getBlockByNumber', [first.blockNumber, false]);
    expect(typed.block.transactions).to.deep.equal(typed.hashes);

    const { abi, bytecode } = testToken();
    const token = getCreateAddress({ from: failing.sender.address, nonce: 0 });
    const fees = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
    const { data } = await new ContractFactory(abi, bytecode).getDeployTransaction('Test', 'TST', ETHER);
    failing.raws = [
      await sign(failing.sender, { nonce: 0, to: null, data, gasLimit: 2_000_000n, ...fees }),
      await sign(failing.sender, {
        nonce: 1,
        to: token,
        data: new Interface(abi).encodeFunctionData('transfer', [RECIPIENT, 2n * ETHER]),
        gasLimit: 100_000n,
        ...fees,
      }),
      await sign(failing.sender, { nonce: 2, to: null, data: INFINITE_LOOP, gasLimit: 100_000n, ...fees }),
    ];
    failing.hashes = await submitTogether(node.url, failing.raws);
    const receipts = await Promise.all(failing.hashes.map((hash) => waitForReceipt(node.url, hash)));
    expect(receipts.map((receipt) => receipt.status)).to.deep.equal(['0x1', '0x0', '0x0']);
  });
  after(() => node.stop());

  describe('eth_getTransactionByHash and by block and index', () => {
    it('serves each transaction type with the fields geth writes', async () => {
      for (const [index, raw] of typed.raws.entries()) {
        expect(await transactionByHash(typed.hashes[index]!), `type ${index}`).to.deep.equal(
          expectedTransaction(raw, minedAt(typed.block, index)),
        );
      }
      const creation = await transactionByHash(failing.hashes[0]!);
      expect(creation.to).to.equal(null);
    });

    it('serves the same transactions by block number or hash and index over EVM transactions', async () => {
      for (const [index, raw] of typed.raws.entries()) {
        const expected = expectedTransaction(raw, minedAt(typed.block, index));
        const position = quantity(index);
        expect(
          await resultOf(call, 'eth_getTransactionByBlockNumberAndIndex', [typed.block.number, position]),
        ).to.deep.equal(expected);
        expect(
          await resultOf(call, 'eth_getTransactionByBlockHashAndIndex', [typed.block.hash, position]),
        ).to.deep.equal(expected);
      }
      const latest = await resultOf(call, 'eth_getBlockByNumber', ['latest', false]);
      expect(await resultOf(call, 'eth_getTransactionByBlockNumberAndIndex', ['latest', '0x0'])).to.deep.equal(
        await transactionByHash(latest.transactions[0]),
      );
    });

    it('answers null for an index out of range, above 2^32, or in an unknown block', async () => {
      for (const index of ['0x4', '0xffffffff', '0x100000000', '0xffffffffffffffff']) {
        expect(await resultOf(call, 'eth_getTransactionByBlockNumberAndIndex', [typed.block.number, index]), index).to
          .be.null;
        expect(await resultOf(call, 'eth_getTransactionByBlockHashAndIndex', [typed.block.hash, index]), index).to.be
          .null;
      }
      expect(await resultOf(call, 'eth_getTransactionByBlockNumberAndIndex', ['0x0', '0x0'])).to.equal(null);
      expect(await resultOf(call, 'eth_getTransactionByBlockNumberAndIndex', ['0xffffff', '0x0'])).to.equal(null);
      expect(await resultOf(call, 'eth_getTransactionByBlockHashAndIndex', [UNKNOWN_HASH, '0x0'])).to.equal(null);
    });

    it('answers null for an unknown hash, and an error for the hash of a native transaction', async () => {
      expect(await transactionByHash(UNKNOWN_HASH)).to.equal(null);
      expect(await receiptOf(UNKNOWN_HASH)).to.equal(null);
      // Each EVM transaction is wrapped in a native transaction, whose hash is SHA-256 of its bytes.
      const nativeHash = sha256(wrapEvmTransaction(getBytes(typed.raws[0]!)));
      expect(await errorOf(call, 'eth_getTransactionByHash', [nativeHash])).to.deep.equal({
        code: -32000,
        message: `transaction ${nativeHash} is a native transaction, not an EVM transaction`,
      });
    });
  });

  describe('eth_getTransactionReceipt', () => {
    it("gives geth's receipt fields for each type: gas used, cumulative gas, effective price", async () => {
      const baseFee = BigInt(typed.block.baseFeePerGas);
      // Legacy and access-list transactions pay their gas price; the others base fee + min(tip, cap - base fee).
      const prices = [2n * GWEI, 2n * GWEI, baseFee + GWEI, baseFee + GWEI];
      // Access list: 2,400 per address and 1,900 per slot; authorization of an empty account: 25,000.
      const gasUsed = [21_000n, 25_300n, 21_000n, 46_000n];
      let cumulative = 0n;
      for (const [index, hash] of typed.hashes.entries()) {
        cumulative += gasUsed[index]!;
        expect(await receiptOf(hash), `type ${index}`).to.deep.equal({
          blockHash: typed.block.hash,
          blockNumber: typed.block.number,
          contractAddress: null,
          cumulativeGasUsed: quantity(cumulative),
          effectiveGasPrice: quantity(prices[index]!),
          from: lower(typed.sender.address),
          gasUsed: quantity(gasUsed[index]!),
          logs: [],
          logsBloom: EMPTY_BLOOM,
          status: '0x1',
          to: RECIPIENT,
          transactionHash: hash,
          transactionIndex: quantity(index),
          type: ['0x0', '0x1', '0x2', '0x4'][index],
        });
      }
    });

    it('has contractAddress on every receipt, null but on creations, and to null on creations, as geth writes them', async () => {
      const [deployment, revert, outOfGas] = await Promise.all(failing.hashes.map(receiptOf));
      for (const [creation, nonce] of [
        [deployment, 0],
        [outOfGas, 2],
      ] as const) {
        expect(creation.contractAddress).to.equal(lower(getCreateAddress({ from: failing.sender.address, nonce })));
        expect(creation).to.have.property('to', null);
      }
      expect(revert).to.have.property('contractAddress', null);
      expect(revert.to).to.equal(deployment.contractAddress);
    });
  });

  describe('VM errors', () => {
    it('eth_getVMError gives the VM error of a receipt, empty for a success, and an error without a receipt', async () => {
      const [deployment, revert, outOfGas] = failing.hashes;
      expect(await resultOf(call, 'eth_getVMError', [deployment])).to.equal('');
      expect(await resultOf(call, 'eth_getVMError', [revert])).to.equal('execution reverted');
      expect(await resultOf(call, 'eth_getVMError', [outOfGas])).to.equal('out of gas');
      expect(await errorOf(call, 'eth_getVMError', [UNKNOWN_HASH])).to.deep.equal({
        code: -32000,
        message: 'receipt not found',
      });
    });

    it('eth_getTransactionErrorByHash gives the same, and an empty string for an unknown transaction', async () => {
      const [deployment, revert, outOfGas] = failing.hashes;
      expect(await resultOf(call, 'eth_getTransactionErrorByHash', [deployment])).to.equal('');
      expect(await resultOf(call, 'eth_getTransactionErrorByHash', [revert])).to.equal('execution reverted');
      expect(await resultOf(call, 'eth_getTransactionErrorByHash', [outOfGas])).to.equal('out of gas');
      expect(await resultOf(call, 'eth_getTransactionErrorByHash', [UNKNOWN_HASH])).to.equal('');
    });
  });

  describe('nonces', () => {
    it('eth_getTransactionCount gives the nonce at any height, by number, hash, EIP-1898 object or tag', async () => {
      const address = typed.sender.address;
      const parent = await resultOf(call, 'eth_getBlockByHash', [typed.block.parentHash, false]);
      for (const [block, count] of [
        [parent, '0x0'],
        [typed.block, '0x4'],
      ]) {
        for (const ref of [block.number, block.hash, { blockHash: block.hash }, { blockNumber: block.number }]) {
          expect(await countOf(address, ref), JSON.stringify(ref)).to.equal(count);
        }
      }
      expect(await countOf(address, 'earliest')).to.equal('0x0');
      for (const tag of ['latest', 'safe', 'finalized', 'pending']) expect(await countOf(address, tag)).to.equal('0x4');
      expect(await resultOf(call, 'eth_getTransactionCount', [address])).to.equal('0x4');
      const head = node.node.chain.head().height;
      expect(await errorOf(call, 'eth_getTransactionCount', [address, quantity(head + 1)])).to.deep.equal({
        code: -32000,
        message: `requested height ${head + 1} is not yet available; safe latest is ${head}`,
      });
      expect(await errorOf(call, 'eth_getTransactionCount', [address, UNKNOWN_HASH])).to.deep.equal({
        code: -32001,
        message: 'block not found by hash',
      });
    });

    it('eth_getNonce gives the latest nonce as a bare integer', async () => {
      expect(await resultOf(call, 'eth_getNonce', [typed.sender.address])).to.equal(4);
      expect(await resultOf(call, 'eth_getNonce', [RECIPIENT])).to.equal(0);
    });
  });

  describe('a transaction waiting in the pool', () => {
    const sender = devWallet(3);
    const raws: string[] = [];

    before(async () => {
      raws.push(
        await sign(sender, { nonce: 0, to: RECIPIENT, value: 1n }),
        await sign(sender, { nonce: 1, to: RECIPIENT, value: 2n, maxFeePerGas: 3n * GWEI }),
      );
    });

    it('is served with null block fields and its fee cap as gasPrice while a nonce gap holds it', async () => {
      const hash = await submit(node.url, raws[1]!);
      // The execution-apis schema describes mined transactions only: this one is checked field by field.
      const answer = await call('eth_getTransactionByHash', [hash]);
      expect(answer.result).to.deep.equal(expectedTransaction(raws[1]!));
      expect(answer.result.gasPrice).to.equal(quantity(3n * GWEI));
      expect(await receiptOf(hash)).to.equal(null);
      expect(await resultOf(call, 'eth_getTransactionErrorByHash', [hash])).to.equal('');
      expect(await errorOf(call, 'eth_getVMError', [hash])).to.deep.equal({
        code: -32000,
        message: 'receipt not found',
      });
      // A gap is not counted by `pending`.
      expect(await countOf(sender.address, 'pending')).to.equal('0x0');
    });

    it('counts ready pool transactions in the pending nonce until they are mined', async () => {
      // Right after a block, the next one is 500 ms away.
      const mined = nextBlocks(node.node.chain);
      await submit(node.url, await sign(devWallet(4), { nonce: 0, to: RECIPIENT }));
      await mined;
      const hash = await submit(node.url, raws[0]!);
      expect(await countOf(sender.address, 'pending')).to.equal('0x2');
      expect(await countOf(sender.address, 'latest')).to.equal('0x0');
      expect(await resultOf(call, 'eth_getNonce', [sender.address])).to.equal(0);

      const receipt = await waitForReceipt(node.url, hash);
      const gapped = Transaction.from(raws[1]).hash!;
      expect((await waitForReceipt(node.url, gapped)).blockNumber).to.equal(receipt.blockNumber);
      expect(await countOf(sender.address, 'latest')).to.equal('0x2');
      expect(await countOf(sender.address, 'pending')).to.equal('0x2');
      expect(await resultOf(call, 'eth_getNonce', [sender.address])).to.equal(2);
      const block = await resultOf(call, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
      expect(await transactionByHash(gapped)).to.deep.equal(expectedTransaction(raws[1]!, minedAt(block, 1)));
    });
  });

  it('serves lookups, receipts and nonces over WebSocket as over HTTP', async () => {
    const client = await WsClient.connect(node.wsUrl);
    const ws = overWs(client);
    const [hash] = typed.hashes;
    expect(await resultOf(ws, 'eth_getTransactionByHash', [hash])).to.deep.equal(await transactionByHash(hash!));
    expect(await resultOf(ws, 'eth_getTransactionReceipt', [hash])).to.deep.equal(await receiptOf(hash!));
    expect(await resultOf(ws, 'eth_getTransactionByBlockHashAndIndex', [typed.block.hash, '0x3'])).to.deep.equal(
      await transactionByHash(typed.hashes[3]!),
    );
    expect(await resultOf(ws, 'eth_getTransactionCount', [typed.sender.address, typed.block.number])).to.equal('0x4');
    expect(await resultOf(ws, 'eth_getNonce', [typed.sender.address])).to.equal(4);
    expect(await resultOf(ws, 'eth_getTransactionErrorByHash', [failing.hashes[1]])).to.equal('execution reverted');
    client.close();
  });
});

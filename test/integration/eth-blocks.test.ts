import { expect } from 'chai';
import { ContractFactory, Interface, Wallet, concat, getBytes, getCreateAddress, hexlify, sha256 } from 'ethers';
import { wrapEvmTransaction, type BlockRecord } from '@evmnode/core';
import { consensusHeaderHash } from '@evmnode/core/internal';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { testToken } from '@evmnode/tools/contracts/test-token';
import {
  BLOCK_GAS_LIMIT,
  CHAIN_ID,
  ETHER,
  FEE_COLLECTOR,
  GWEI,
  devWallet,
  expectedNextBaseFee,
  lower,
  quantity,
  sign,
  signEachType,
  submit,
  submitTogether,
  waitForReceipt,
} from '../support/chain-kit.js';
import { overHttp, overWs, resultOf, type Call } from '../support/rpc-answers.js';
import { expectedTransaction } from '../support/transaction-json.js';
import { WsClient } from '../support/ws-client.js';

// Block hashes are SHA-256 of the consensus header, not keccak of an Ethereum header
// (interface.md §1.6, decisions.md D4): the tests derive them that way. The execution-apis schema
// checks only their form, so every block is still validated against it.

type Hex = `0x${string}`;

const ZERO_HASH: Hex = `0x${'00'.repeat(32)}`;
const ZERO_ADDRESS: Hex = `0x${'00'.repeat(20)}`;
const EMPTY_BLOOM = `0x${'00'.repeat(256)}`;
/** keccak256(RLP([])): the uncle hash of a block without uncles. */
const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
/** keccak256(RLP('')): the transactions root the reference node writes for a block without transactions. */
const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const RECIPIENT = '0x00000000000000000000000000000000000000dd';
const UNKNOWN_HASH = `0x${'ab'.repeat(32)}`;

/** The OR of 256-byte blooms. */
function orBlooms(blooms: readonly string[]): string {
  const bits = new Uint8Array(256);
  for (const bloom of blooms) getBytes(bloom).forEach((byte, index) => (bits[index]! |= byte));
  return hexlify(bits);
}

/** A block's data hash: SHA-256 over the native hashes (SHA-256 of the native wrapper) of its transactions. */
function dataHashOf(raws: readonly string[]): Hex {
  return sha256(concat(raws.map((raw) => sha256(wrapEvmTransaction(getBytes(raw)))))) as Hex;
}

describe('eth blocks: eth_getBlockByNumber/ByHash, transaction counts, eth_getBlockReceipts', function () {
  this.timeout(60_000);
  let node: TestNode;
  let call: Call;
  /** Height 1: one transaction of each type, a token deployment and a token transfer, in nonce order. */
  const raws: string[] = [];
  let hashes: string[];
  let record: BlockRecord;
  let genesisRecord: BlockRecord;

  before(async () => {
    // Blocks only when transactions arrive, so heights and `latest` are known.
    node = await startTestNode({ config: { consensus: { block_time: 50, create_empty_blocks: false } } });
    call = overHttp(node.url);
    const sender = devWallet(1);
    const { abi, bytecode } = testToken();
    const fees = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
    const { data } = await new ContractFactory(abi, bytecode).getDeployTransaction('Test', 'TST', 1000n * ETHER);
    raws.push(
      ...(await signEachType(sender, 0, RECIPIENT, Wallet.createRandom())),
      await sign(sender, { nonce: 4, to: null, data, gasLimit: 2_000_000n, ...fees }),
      await sign(sender, {
        nonce: 5,
        to: getCreateAddress({ from: sender.address, nonce: 4 }),
        data: new Interface(abi).encodeFunctionData('transfer', [RECIPIENT, ETHER]),
        gasLimit: 100_000n,
        ...fees,
      }),
    );
    hashes = await submitTogether(node.url, raws);
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
    expect(receipts.map((receipt) => [receipt.blockNumber, receipt.status])).to.deep.equal(
      receipts.map(() => ['0x1', '0x1']),
    );
    // Height 2: another sender's transfer.
    await waitForReceipt(node.url, await submit(node.url, await sign(devWallet(2), { nonce: 0, to: RECIPIENT })));
    record = (await node.node.chain.store.blockAt(1))!;
    genesisRecord = (await node.node.chain.store.blockAt(0))!;
  });
  after(() => node.stop());

  const blockByNumber = (number: unknown, full = false) => resultOf(call, 'eth_getBlockByNumber', [number, full]);
  const blockByHash = (hash: string, full = false) => resultOf(call, 'eth_getBlockByHash', [hash, full]);

  it('serves the synthetic genesis block at 0, at its hash and as earliest', async () => {
    const genesis = await blockByNumber('0x0');
    expect(genesis).to.deep.equal({
      baseFeePerGas: quantity(GWEI),
      difficulty: '0x0',
      extraData: '0x',
      gasLimit: quantity(BLOCK_GAS_LIMIT),
      gasUsed: '0x0',
      hash: consensusHeaderHash({
        chainId: CHAIN_ID,
        height: 0n,
        timeMs: BigInt(genesisRecord.header.timeMs),
        parentHash: ZERO_HASH,
        dataHash: dataHashOf([]),
        appHash: ZERO_HASH,
        proposer: ZERO_ADDRESS,
      }),
      logsBloom: EMPTY_BLOOM,
      miner: ZERO_ADDRESS,
      mixHash: ZERO_HASH,
      nonce: '0x0000000000000000',
      number: '0x0',
      parentHash: ZERO_HASH,
      receiptsRoot: genesisRecord.receiptsRoot,
      sha3Uncles: EMPTY_UNCLES_HASH,
      size: quantity(genesisRecord.size),
      stateRoot: genesisRecord.stateRoot,
      timestamp: quantity(BigInt(genesisRecord.header.timeMs) / 1000n),
      transactions: [],
      transactionsRoot: EMPTY_TRIE_ROOT,
      uncles: [],
    });
    expect(await blockByNumber('earliest')).to.deep.equal(genesis);
    expect(await blockByHash(genesis.hash)).to.deep.equal(genesis);
    expect(await blockByNumber('0x0', true)).to.deep.equal({ ...genesis, totalDifficulty: '0x0' });
  });

  it('serves a block with its header fields, the placeholders of pre-merge fields, and its EVM transactions in order', async () => {
    const genesis = await blockByNumber('0x0');
    const receipts: any[] = await resultOf(call, 'eth_getBlockReceipts', ['0x1']);
    const gasUsed = receipts.reduce((sum: bigint, receipt) => sum + BigInt(receipt.gasUsed), 0n);
    const block = await blockByNumber('0x1');
    expect(block).to.deep.equal({
      // Height 1 keeps the genesis base fee.
      baseFeePerGas: quantity(GWEI),
      difficulty: '0x0',
      extraData: '0x',
      gasLimit: quantity(BLOCK_GAS_LIMIT),
      gasUsed: quantity(gasUsed),
      hash: consensusHeaderHash({
        chainId: CHAIN_ID,
        height: 1n,
        timeMs: BigInt(record.header.timeMs),
        parentHash: genesis.hash,
        dataHash: dataHashOf(raws),
        appHash: genesis.stateRoot,
        proposer: node.node.chain.proposer,
      }),
      logsBloom: orBlooms(receipts.map((receipt) => receipt.logsBloom)),
      // The proposer; fees go to the fee collector.
      miner: node.node.chain.proposer,
      mixHash: ZERO_HASH,
      nonce: '0x0000000000000000',
      number: '0x1',
      parentHash: genesis.hash,
      receiptsRoot: record.receiptsRoot,
      sha3Uncles: EMPTY_UNCLES_HASH,
      size: quantity(record.size),
      stateRoot: record.stateRoot,
      timestamp: quantity(BigInt(record.header.timeMs) / 1000n),
      transactions: hashes,
      transactionsRoot: dataHashOf(raws),
      uncles: [],
    });
    expect(block.miner).to.not.equal(FEE_COLLECTOR);
    expect(block.logsBloom).to.not.equal(EMPTY_BLOOM);
    expect(receipts.map((receipt) => receipt.transactionHash)).to.deep.equal(hashes);

    const next = await blockByNumber('0x2');
    expect(next.parentHash).to.equal(block.hash);
    expect(next.baseFeePerGas).to.equal(quantity(expectedNextBaseFee(GWEI, gasUsed, BLOCK_GAS_LIMIT)));
  });

  it('gives latest, safe, finalized and pending the last committed block', async () => {
    const head = await blockByNumber('0x2');
    expect(node.node.chain.head().height).to.equal(2);
    for (const tag of ['latest', 'safe', 'finalized', 'pending']) {
      expect(await blockByNumber(tag), tag).to.deep.equal(head);
    }
  });

  it('serves a block by its hash, and null for an unknown or zero hash and a future number', async () => {
    const block = await blockByNumber('0x1');
    expect(await blockByHash(block.hash)).to.deep.equal(block);
    expect(await blockByHash(`0x${(block.hash as string).slice(2).toUpperCase()}`)).to.deep.equal(block);
    for (const [hash, full] of [
      [UNKNOWN_HASH, false],
      [ZERO_HASH, false],
      [ZERO_HASH, true],
    ] as const) {
      expect(await blockByHash(hash, full), hash).to.equal(null);
    }
    for (const number of ['0x3', '0xffffffff', '0x7fffffffffffffff']) {
      expect(await blockByNumber(number), number).to.equal(null);
      expect(await blockByNumber(number, true), number).to.equal(null);
    }
  });

  it('lists full transactions as eth_getTransactionByHash gives them, with totalDifficulty 0x0', async () => {
    // totalDifficulty comes with full transactions only, as geth writes it; the schema allows it.
    const block = await blockByNumber('0x1');
    const full = await blockByNumber('0x1', true);
    const transactions = raws.map((raw, index) =>
      expectedTransaction(raw, {
        blockHash: block.hash,
        blockNumber: 1,
        blockTimestamp: block.timestamp,
        index,
        baseFee: GWEI,
      }),
    );
    expect(full).to.deep.equal({ ...block, totalDifficulty: '0x0', transactions });
    expect(await blockByHash(block.hash, true)).to.deep.equal(full);
    for (const [index, hash] of hashes.entries()) {
      expect(await resultOf(call, 'eth_getTransactionByHash', [hash])).to.deep.equal(transactions[index]);
    }
    expect(transactions.map((transaction) => transaction.type)).to.deep.equal([
      '0x0',
      '0x1',
      '0x2',
      '0x4',
      '0x2',
      '0x2',
    ]);
  });

  it('answers a block asked for again, in each detail, as the first time: kept answers are per detail', async () => {
    const hashesOnly = await blockByNumber('0x1');
    const full = await blockByNumber('0x1', true);
    for (let round = 0; round < 2; round++) {
      expect(await blockByNumber('0x1')).to.deep.equal(hashesOnly);
      expect(await blockByHash(hashesOnly.hash)).to.deep.equal(hashesOnly);
      expect(await blockByNumber('0x1', true)).to.deep.equal(full);
    }
    expect(hashesOnly.transactions).to.deep.equal(hashes);
    expect((full.transactions as { hash: string }[]).map((transaction) => transaction.hash)).to.deep.equal(hashes);
  });

  it('counts the transactions of a block by number and by hash: 0x0 for genesis, null for unknown blocks', async () => {
    const [genesis, block, head] = await Promise.all([
      blockByNumber('0x0'),
      blockByNumber('0x1'),
      blockByNumber('0x2'),
    ]);
    const byNumber = (number: string) => resultOf(call, 'eth_getBlockTransactionCountByNumber', [number]);
    const byHash = (hash: string) => resultOf(call, 'eth_getBlockTransactionCountByHash', [hash]);
    expect(await byNumber('0x1')).to.equal('0x6');
    expect(await byHash(block.hash)).to.equal('0x6');
    expect(await byNumber('0x0')).to.equal('0x0');
    expect(await byNumber('earliest')).to.equal('0x0');
    expect(await byHash(genesis.hash)).to.equal('0x0');
    for (const tag of ['latest', 'safe', 'finalized', 'pending']) expect(await byNumber(tag), tag).to.equal('0x1');
    expect(await byHash(head.hash)).to.equal('0x1');
    expect(await byNumber('0x3')).to.equal(null);
    expect(await byHash(UNKNOWN_HASH)).to.equal(null);
    expect(await byHash(ZERO_HASH)).to.equal(null);
  });

  describe('eth_getBlockReceipts', () => {
    const blockReceipts = (ref: unknown) => resultOf(call, 'eth_getBlockReceipts', [ref]);

    it("gives a block's receipts in order, as eth_getTransactionReceipt does, by number, hash, tag or EIP-1898 object", async () => {
      const block = await blockByNumber('0x1');
      const receipts = [];
      for (const hash of hashes) receipts.push(await resultOf(call, 'eth_getTransactionReceipt', [hash]));
      expect(receipts.map((receipt) => receipt.transactionIndex)).to.deep.equal(
        hashes.map((_, index) => quantity(index)),
      );
      for (const ref of [
        '0x1',
        block.hash,
        { blockNumber: '0x1' },
        { blockHash: block.hash },
        { blockHash: block.hash, requireCanonical: true },
      ]) {
        expect(await blockReceipts(ref), JSON.stringify(ref)).to.deep.equal(receipts);
      }
      const head = await blockByNumber('latest');
      for (const tag of ['latest', 'safe', 'finalized', 'pending']) {
        expect(await blockReceipts(tag), tag).to.deep.equal([
          await resultOf(call, 'eth_getTransactionReceipt', [head.transactions[0]]),
        ]);
      }
    });

    it('writes contractAddress on every receipt: the created address for the deployment, null for the others', async () => {
      const receipts: any[] = await blockReceipts('0x1');
      const created = lower(getCreateAddress({ from: devWallet(1).address, nonce: 4 }));
      expect(receipts.map((receipt) => [receipt.contractAddress, receipt.to])).to.deep.equal([
        [null, RECIPIENT],
        [null, RECIPIENT],
        [null, RECIPIENT],
        [null, RECIPIENT],
        [created, null],
        [null, created],
      ]);
    });

    it('gives [] for genesis, and null for a zero or unknown hash and a future number', async () => {
      const genesis = await blockByNumber('0x0');
      for (const ref of ['0x0', 'earliest', genesis.hash, { blockHash: genesis.hash }]) {
        expect(await blockReceipts(ref), JSON.stringify(ref)).to.deep.equal([]);
      }
      for (const ref of [ZERO_HASH, UNKNOWN_HASH, { blockHash: UNKNOWN_HASH }, '0x3', { blockNumber: '0x3' }]) {
        expect(await blockReceipts(ref), JSON.stringify(ref)).to.equal(null);
      }
    });
  });

  it('serves blocks, counts and receipts over WebSocket as over HTTP', async () => {
    const client = await WsClient.connect(node.wsUrl);
    const ws = overWs(client);
    const block = await blockByNumber('0x1');
    expect(await resultOf(ws, 'eth_getBlockByNumber', ['0x1', false])).to.deep.equal(block);
    expect(await resultOf(ws, 'eth_getBlockByHash', [block.hash, true])).to.deep.equal(
      await blockByNumber('0x1', true),
    );
    expect(await resultOf(ws, 'eth_getBlockByNumber', ['0x3', false])).to.equal(null);
    expect(await resultOf(ws, 'eth_getBlockTransactionCountByHash', [block.hash])).to.equal('0x6');
    expect(await resultOf(ws, 'eth_getBlockReceipts', ['0x1'])).to.deep.equal(
      await resultOf(call, 'eth_getBlockReceipts', ['0x1']),
    );
    client.close();
  });
});

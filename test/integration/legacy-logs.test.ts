import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bech32 } from '@scure/base';
import { expect } from 'chai';
import { hexlify, Interface, Wallet } from 'ethers';
import { devAccounts, pointerAddressOf } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, GWEI, nextBlocks, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
import { nativeSigner, registerPointer, signNative } from '../support/native-kit.js';

const FEE = [{ denom: 'usei', amount: '200' }];
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const MAX_FILTERS = 3;
const LEGACY_LOG_METHODS = [
  'ext_getLogs',
  'ext_newFilter',
  'ext_newBlockFilter',
  'ext_getFilterChanges',
  'ext_getFilterLogs',
  'ext_uninstallFilter',
  'ext_getBlockByNumberExcludeTraceFail',
  'ext_getBlockByHashExcludeTraceFail',
  'ext_getTransactionReceiptExcludeTraceFail',
  'ext_traceBlockByNumberExcludeTraceFail',
  'ext_traceBlockByHashExcludeTraceFail',
  'ext2_getBlockByNumber',
  'ext2_getBlockByNumberExcludeTraceFail',
  'ext2_getBlockByHashExcludeTraceFail',
];
const TRANSFER_ABI = new Interface(['function transfer(address to, uint256 value) returns (bool)']);

/** The hashes a block lists, with or without full transactions. */
const hashesOf = (block: { transactions: (string | { hash: string })[] }) =>
  block.transactions.map((tx) => (typeof tx === 'string' ? tx : tx.hash));

const castOf = (evmAddress: string): string =>
  bech32.encode('sei', bech32.toWords(Buffer.from(evmAddress.slice(2), 'hex')));
const word = (hex: string) => `0x${hex.replace(/^0x/, '').toLowerCase().padStart(64, '0')}`;

async function resultOf(url: string, method: string, params: unknown[] = []): Promise<any> {
  const answer = await rpc(url, method, params);
  expect(answer.error, `${method}: ${JSON.stringify(answer.error)}`).to.equal(undefined);
  return answer.result;
}

async function errorOf(url: string, method: string, params: unknown[] = []): Promise<any> {
  return (await rpc(url, method, params)).error;
}

describe('ext_ logs and filters, and the ExcludeTraceFail methods, on one block: [pointer send, EVM token transfer, reverted EVM transfer]', function () {
  this.timeout(60_000);
  let node: TestNode;
  let height: string;
  let blockHash: string;
  let tokenTransfer: string;
  let reverted: string;
  let pointerTransfer: string;
  let pointer: string;
  /**
   * Installed before the block: ext_ and eth_ log filters on the pointer (from block 1, so that their
   * logs stay the same as blocks follow), and an ext_ block filter.
   */
  let filters: { ext: string; eth: string; extBlocks: string; installedAt: number };
  const pointerSender = devAccounts(3)[2]!;
  const pointerReceiver = Wallet.createRandom().address;
  const tokenReceiver = devWallet(5).address;

  // Long blocks, so that the native and EVM transactions sent together share one; a home of the
  // test's own, so that the node can be restarted on it.
  const home = mkdtempSync(join(tmpdir(), 'evmnode-legacy-logs-'));
  const start = () =>
    startTestNode({
      home,
      config: {
        consensus: { block_time: 1000 },
        evm: { enabled_legacy_ext_apis: LEGACY_LOG_METHODS, max_filters: MAX_FILTERS },
      },
    });

  /** A signed token transfer through the pointer, from dev account 4 to the token receiver. */
  const signedTokenTransfer = (amount: bigint, nonce: number) =>
    sign(devWallet(4), {
      to: pointer,
      data: TRANSFER_ABI.encodeFunctionData('transfer', [tokenReceiver, amount]),
      gasLimit: 200_000n,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: 1n * GWEI,
      nonce,
      chainId: 713714n,
    });

  before(async () => {
    node = await start();
    const registrar = await nativeSigner(devAccounts(1)[0]!.privateKey);
    const registered = await registerPointer(node.node.native, registrar, 'utest');
    expect(registered.code, registered.log).to.equal(0);
    pointer = hexlify(pointerAddressOf('utest'));
    const evmTransfer = await signedTokenTransfer(5n, 0);
    // More tokens than the sender holds: the pointer reverts. The next nonce of the same sender, sent
    // first, so that it waits in the pool and the transfer makes both ready for one block.
    const overdraw = await signedTokenTransfer(10n ** 30n, 1);
    reverted = await submit(node.url, overdraw);
    const signer = await nativeSigner(pointerSender.privateKey);
    const account = (await node.node.native.account(signer.address))!;
    const pointerSend = await signNative(signer, {
      messages: [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: {
            fromAddress: signer.address,
            toAddress: castOf(pointerReceiver),
            amount: [{ denom: 'utest', amount: '7' }],
          },
        },
      ],
      sequence: account.sequence,
      accountNumber: account.accountNumber,
      fee: FEE,
    });

    // All right after a block commits, so that all land in the next one.
    await nextBlocks(node.node.chain);
    filters = {
      ext: await resultOf(node.url, 'ext_newFilter', [{ address: pointer, fromBlock: '0x1' }]),
      eth: await resultOf(node.url, 'eth_newFilter', [{ address: pointer, fromBlock: '0x1' }]),
      extBlocks: await resultOf(node.url, 'ext_newBlockFilter'),
      installedAt: node.node.chain.head().height,
    };
    const checked = await node.node.native.submit(pointerSend);
    expect(checked.code, checked.log).to.equal(0);
    tokenTransfer = await submit(node.url, evmTransfer);
    const [receipt, revertedReceipt] = await Promise.all([
      waitForReceipt(node.url, tokenTransfer),
      waitForReceipt(node.url, reverted),
    ]);
    expect([revertedReceipt.blockNumber, revertedReceipt.transactionIndex, revertedReceipt.status]).to.deep.equal([
      receipt.blockNumber,
      '0x1',
      '0x0',
    ]);
    height = receipt.blockNumber;
    blockHash = receipt.blockHash;
    const stored = (await node.node.chain.store.blockAt(Number(height)))!;
    expect(stored.synthetic.ext).to.have.length(1);
    [pointerTransfer] = stored.synthetic.ext as [string];
  });
  after(async () => {
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  const evmLog = (transactionIndex: string, logIndex: string) => ({
    address: pointer,
    topics: [TRANSFER_TOPIC, word(devWallet(4).address), word(tokenReceiver)],
    data: word('5'),
    blockNumber: height,
    transactionHash: tokenTransfer,
    transactionIndex,
    blockHash,
    logIndex,
    removed: false,
  });
  const syntheticLog = () => ({
    address: pointer,
    topics: [TRANSFER_TOPIC, word(pointerSender.address), word(pointerReceiver)],
    data: word('7'),
    blockNumber: height,
    transactionHash: pointerTransfer,
    transactionIndex: '0x0',
    blockHash,
    logIndex: '0x0',
    removed: false,
    synthetic: true,
  });
  /** The block's logs in the ext view: the synthetic Transfer first, then the EVM one after it. */
  const extLogs = () => [syntheticLog(), { ...evmLog('0x1', '0x1'), synthetic: false }];

  it('ext_getLogs shows the synthetic Transfer log first with synthetic: true; eth_getLogs does not', async () => {
    expect(await resultOf(node.url, 'ext_getLogs', [{ blockHash }])).to.deep.equal(extLogs());
    expect(
      await resultOf(node.url, 'ext_getLogs', [{ fromBlock: height, toBlock: height, address: pointer }]),
    ).to.deep.equal(extLogs());
    expect(await resultOf(node.url, 'eth_getLogs', [{ blockHash }])).to.deep.equal([evmLog('0x0', '0x0')]);
  });

  it('ext_getFilterChanges gives the new block logs including synthetic ones, eth_getFilterChanges the EVM ones', async () => {
    expect(await resultOf(node.url, 'ext_getFilterChanges', [filters.ext])).to.deep.equal(extLogs());
    expect(await resultOf(node.url, 'eth_getFilterChanges', [filters.eth])).to.deep.equal([evmLog('0x0', '0x0')]);
    // Delivered once.
    expect(await resultOf(node.url, 'ext_getFilterChanges', [filters.ext])).to.deep.equal([]);
    const hashes: string[] = await resultOf(node.url, 'ext_getFilterChanges', [filters.extBlocks]);
    const expected = await Promise.all(
      hashes.map(
        async (_, index) =>
          (
            await resultOf(node.url, 'eth_getBlockByNumber', [
              `0x${(filters.installedAt + 1 + index).toString(16)}`,
              false,
            ])
          ).hash,
      ),
    );
    expect(hashes).to.deep.equal(expected);
    expect(hashes).to.include(blockHash);
  });

  it('ext_getFilterLogs gives every matching log including synthetic ones', async () => {
    expect(await resultOf(node.url, 'ext_getFilterLogs', [filters.ext])).to.deep.equal(extLogs());
    expect(await resultOf(node.url, 'eth_getFilterLogs', [filters.eth])).to.deep.equal([evmLog('0x0', '0x0')]);
  });

  it('keeps the ext_ filters apart from the eth_ ones: each id is unknown to the other namespace', async () => {
    const unknown = { code: -32000, message: 'filter does not exist' };
    expect(await errorOf(node.url, 'ext_getFilterChanges', [filters.eth])).to.deep.equal(unknown);
    expect(await errorOf(node.url, 'ext_getFilterLogs', [filters.eth])).to.deep.equal(unknown);
    expect(await errorOf(node.url, 'eth_getFilterChanges', [filters.ext])).to.deep.equal(unknown);
    expect(await resultOf(node.url, 'ext_uninstallFilter', [filters.eth])).to.equal(false);
    expect(await resultOf(node.url, 'eth_uninstallFilter', [filters.ext])).to.equal(false);
    expect(await resultOf(node.url, 'eth_getFilterChanges', [filters.eth])).to.deep.equal([]);
  });

  it('applies max_filters to the ext_ registry with the eth_ error, apart from the eth_ registry', async () => {
    const limit = { code: -32005, message: `filter limit reached: at most ${MAX_FILTERS} filters can be installed` };
    // ext_ holds two (the log and the block filter); eth_ holds one.
    const third = await resultOf(node.url, 'ext_newFilter', [{}]);
    expect(await errorOf(node.url, 'ext_newFilter', [{}])).to.deep.equal(limit);
    expect(await errorOf(node.url, 'ext_newBlockFilter')).to.deep.equal(limit);
    // The eth_ registry still has room for two.
    const ethIds = [await resultOf(node.url, 'eth_newFilter', [{}]), await resultOf(node.url, 'eth_newBlockFilter')];
    expect(await errorOf(node.url, 'eth_newFilter', [{}])).to.deep.equal(limit);
    for (const id of [filters.ext, filters.extBlocks, third]) {
      expect(await resultOf(node.url, 'ext_uninstallFilter', [id])).to.equal(true);
    }
    expect(await resultOf(node.url, 'ext_uninstallFilter', [third])).to.equal(false);
    expect(await errorOf(node.url, 'ext_getFilterChanges', [third])).to.deep.equal({
      code: -32000,
      message: 'filter does not exist',
    });
    for (const id of [filters.eth, ...ethIds])
      expect(await resultOf(node.url, 'eth_uninstallFilter', [id])).to.equal(true);
  });

  it("numbers a later block's EVM logs as eth_getLogs does (no synthetic log precedes them), also after a restart", async () => {
    const later = await signedTokenTransfer(1n, 2);
    const laterHeight = (await waitForReceipt(node.url, await submit(node.url, later))).blockNumber;
    const expectViews = async () => {
      const range = { fromBlock: laterHeight, address: pointer };
      const ethLogs: object[] = await resultOf(node.url, 'eth_getLogs', [range]);
      expect(ethLogs).to.have.length(1);
      expect(await resultOf(node.url, 'ext_getLogs', [range])).to.deep.equal(
        ethLogs.map((log) => ({ ...log, synthetic: false })),
      );
      expect(await resultOf(node.url, 'ext_getLogs', [{ fromBlock: height, toBlock: height }])).to.deep.equal(
        extLogs(),
      );
    };
    await expectViews();
    await node.stop();
    node = await start();
    await expectViews();
  });

  describe('ExcludeTraceFail (no committed transaction can fail tracing here: reverts are kept, synthetic ones left out)', () => {
    it('ext_getBlockBy*ExcludeTraceFail answer the eth_ block: both EVM transactions, the reverted one kept, no synthetic one', async () => {
      for (const full of [false, true]) {
        const eth = await resultOf(node.url, 'eth_getBlockByNumber', [height, full]);
        expect(hashesOf(eth)).to.deep.equal([tokenTransfer, reverted]);
        expect(await resultOf(node.url, 'ext_getBlockByNumberExcludeTraceFail', [height, full])).to.deep.equal(eth);
        expect(await resultOf(node.url, 'ext_getBlockByHashExcludeTraceFail', [blockHash, full])).to.deep.equal(eth);
      }
      expect(await resultOf(node.url, 'ext_getBlockByNumberExcludeTraceFail', ['0x0', false])).to.deep.equal(
        await resultOf(node.url, 'eth_getBlockByNumber', ['0x0', false]),
      );
      expect(await resultOf(node.url, 'ext_getBlockByNumberExcludeTraceFail', ['0xffffff', false])).to.equal(null);
      expect(await resultOf(node.url, 'ext_getBlockByHashExcludeTraceFail', [word('0'), false])).to.equal(null);
    });

    it('ext2_getBlockBy*ExcludeTraceFail answer the ext2 block: the bank send, then both EVM transactions', async () => {
      const [bankSend] = (await node.node.chain.store.blockAt(Number(height)))!.synthetic.ext2 as [string];
      for (const full of [false, true]) {
        const ext2 = await resultOf(node.url, 'ext2_getBlockByNumber', [height, full]);
        expect(hashesOf(ext2)).to.deep.equal([bankSend, tokenTransfer, reverted]);
        expect(await resultOf(node.url, 'ext2_getBlockByNumberExcludeTraceFail', [height, full])).to.deep.equal(ext2);
        expect(await resultOf(node.url, 'ext2_getBlockByHashExcludeTraceFail', [blockHash, full])).to.deep.equal(ext2);
      }
    });

    it('ext_getTransactionReceiptExcludeTraceFail gives the eth_ receipt, the reverted one too; null for a synthetic or unknown hash', async () => {
      for (const txHash of [tokenTransfer, reverted]) {
        const eth = await resultOf(node.url, 'eth_getTransactionReceipt', [txHash]);
        expect(await resultOf(node.url, 'ext_getTransactionReceiptExcludeTraceFail', [txHash])).to.deep.equal(eth);
      }
      expect((await resultOf(node.url, 'ext_getTransactionReceiptExcludeTraceFail', [reverted])).status).to.equal(
        '0x0',
      );
      expect(await resultOf(node.url, 'ext_getTransactionReceiptExcludeTraceFail', [pointerTransfer])).to.equal(null);
      expect(await resultOf(node.url, 'ext_getTransactionReceiptExcludeTraceFail', [word('1')])).to.equal(null);
    });

    it('ext_traceBlockBy*ExcludeTraceFail give the block trace of both EVM transactions, the revert included', async () => {
      for (const config of [{ tracer: 'callTracer' }, { tracer: 'prestateTracer' }, { disableStorage: true }]) {
        const debug = await resultOf(node.url, 'debug_traceBlockByNumber', [height, config]);
        expect((debug as { txHash: string }[]).map((entry) => entry.txHash)).to.deep.equal([tokenTransfer, reverted]);
        expect(await resultOf(node.url, 'ext_traceBlockByNumberExcludeTraceFail', [height, config])).to.deep.equal(
          debug,
        );
        expect(await resultOf(node.url, 'ext_traceBlockByHashExcludeTraceFail', [blockHash, config])).to.deep.equal(
          debug,
        );
      }
      const calls = await resultOf(node.url, 'ext_traceBlockByNumberExcludeTraceFail', [
        height,
        { tracer: 'callTracer' },
      ]);
      expect(calls[1].result).to.deep.include({ error: 'execution reverted', to: pointer });
      const structLogs = await resultOf(node.url, 'ext_traceBlockByHashExcludeTraceFail', [blockHash]);
      expect(
        (structLogs as { txHash: string; result: { failed: boolean } }[]).map((entry) => [
          entry.txHash,
          entry.result.failed,
        ]),
      ).to.deep.equal([
        [tokenTransfer, false],
        [reverted, true],
      ]);
    });
  });
});

describe('the legacy plugins on a node without traces', function () {
  this.timeout(60_000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      config: {
        node: { disable_tags: ['trace'] },
        evm: { enabled_legacy_ext_apis: ['ext_getBlockByNumber', 'ext_getBlockByNumberExcludeTraceFail'] },
      },
    });
  });
  after(() => node.stop());

  it('serves ext-legacy, while the ExcludeTraceFail methods (legacy-trace, tag trace) are not loaded', async () => {
    const block = await rpc(node.url, 'ext_getBlockByNumber', ['0x0', false]);
    expect(block.result.number).to.equal('0x0');
    expect((await rpc(node.url, 'ext_getBlockByNumberExcludeTraceFail', ['0x0', false])).error).to.deep.equal({
      code: -32601,
      message: 'the method ext_getBlockByNumberExcludeTraceFail does not exist/is not available',
    });
  });
});

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
];

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

describe('ext_getLogs and the ext_ filters: synthetic pointer Transfer logs, a registry of their own', function () {
  this.timeout(60_000);
  let node: TestNode;
  let height: string;
  let blockHash: string;
  let tokenTransfer: string;
  let pointerTransfer: string;
  let pointer: string;
  /** Installed before the block: ext_ and eth_ log filters on the pointer, and an ext_ block filter. */
  let filters: { ext: string; eth: string; extBlocks: string; installedAt: number };
  const pointerSender = devAccounts(3)[2]!;
  const pointerReceiver = Wallet.createRandom().address;
  const tokenReceiver = devWallet(5).address;

  before(async () => {
    // Long blocks, so that the native and EVM transactions sent together share one.
    node = await startTestNode({
      config: {
        consensus: { block_time: 1000 },
        evm: { enabled_legacy_ext_apis: LEGACY_LOG_METHODS, max_filters: MAX_FILTERS },
      },
    });
    const registrar = await nativeSigner(devAccounts(1)[0]!.privateKey);
    const registered = await registerPointer(node.node.native, registrar, 'utest');
    expect(registered.code, registered.log).to.equal(0);
    pointer = hexlify(pointerAddressOf('utest'));
    const evmTransfer = await sign(devWallet(4), {
      to: pointer,
      data: new Interface(['function transfer(address to, uint256 value) returns (bool)']).encodeFunctionData(
        'transfer',
        [tokenReceiver, 5n],
      ),
      gasLimit: 200_000n,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: 1n * GWEI,
      nonce: 0,
      chainId: 713714n,
    });
    const signer = await nativeSigner(pointerSender.privateKey);

    // All right after a block commits, so that all land in the next one.
    await nextBlocks(node.node.chain);
    filters = {
      ext: await resultOf(node.url, 'ext_newFilter', [{ address: pointer }]),
      eth: await resultOf(node.url, 'eth_newFilter', [{ address: pointer }]),
      extBlocks: await resultOf(node.url, 'ext_newBlockFilter'),
      installedAt: node.node.chain.head().height,
    };
    const account = (await node.node.native.account(signer.address))!;
    const checked = await node.node.native.submit(
      await signNative(signer, {
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
      }),
    );
    expect(checked.code, checked.log).to.equal(0);
    tokenTransfer = await submit(node.url, evmTransfer);
    const receipt = await waitForReceipt(node.url, tokenTransfer);
    height = receipt.blockNumber;
    blockHash = receipt.blockHash;
    [pointerTransfer] = (await node.node.chain.store.blockAt(Number(height)))!.synthetic.ext as [string];
  });
  after(() => node.stop());

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
});

import { bech32 } from '@scure/base';
import { expect } from 'chai';
import { hexlify, Interface, Wallet } from 'ethers';
import { devAccounts, HeldAnswers, pointerAddressOf } from '@evmnode/core';
import { IndexedLogQuery } from '@evmnode/core/internal';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, GWEI, nextBlocks, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
import { nativeSigner, registerPointer, signNative, type NativeSigner } from '../support/native-kit.js';

const WEI_PER_USEI = 10n ** 12n;
const FEE = [{ denom: 'usei', amount: '200' }];
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const LEGACY_VIEW_METHODS = [
  'ext_getBlockByNumber',
  'ext_getBlockByHash',
  'ext_getBlockReceipts',
  'ext_getBlockTransactionCountByNumber',
  'ext_getBlockTransactionCountByHash',
  'ext_getTransactionByHash',
  'ext_getTransactionReceipt',
  'ext_getTransactionByBlockNumberAndIndex',
  'ext_getTransactionByBlockHashAndIndex',
  'ext2_getBlockByNumber',
  'ext2_getBlockByHash',
  'ext2_getBlockReceipts',
  'ext2_getBlockTransactionCountByNumber',
  'ext2_getBlockTransactionCountByHash',
];

const castOf = (evmAddress: string): string =>
  bech32.encode('sei', bech32.toWords(Buffer.from(evmAddress.slice(2), 'hex')));
const word = (hex: string) => `0x${hex.replace(/^0x/, '').toLowerCase().padStart(64, '0')}`;
const quantity = (value: number | bigint) => `0x${value.toString(16)}`;

/** Submits a native bank send without waiting for its block; its native hash. */
async function submitSend(node: TestNode, signer: NativeSigner, to: string, coin: { denom: string; amount: string }) {
  const account = (await node.node.native.account(signer.address))!;
  const raw = await signNative(signer, {
    messages: [
      {
        typeUrl: '/cosmos.bank.v1beta1.MsgSend',
        value: { fromAddress: signer.address, toAddress: to, amount: [coin] },
      },
    ],
    sequence: account.sequence,
    accountNumber: account.accountNumber,
    fee: FEE,
  });
  const checked = await node.node.native.submit(raw);
  expect(checked.code, checked.log).to.equal(0);
  return hexlify(checked.hash);
}

describe('the eth_, ext_ and ext2_ views of one block: [native send, EVM transaction, pointer send, EVM transaction]', function () {
  this.timeout(60_000);
  let node: TestNode;
  let height: string;
  let blockHash: string;
  let evm: [string, string];
  let native: [string, string];
  let bankSends: [string, string];
  let pointerTransfer: string;
  let pointer: string;
  const [bankSender, pointerSender] = devAccounts(3).slice(1);
  const [bankReceiver, pointerReceiver] = [Wallet.createRandom().address, Wallet.createRandom().address];
  const [evmReceiver, tokenReceiver] = [Wallet.createRandom().address.toLowerCase(), devWallet(5).address];

  before(async () => {
    // Long blocks, so that the native and EVM transactions sent together share one.
    node = await startTestNode({
      config: { consensus: { block_time: 1000 }, evm: { enabled_legacy_ext_apis: LEGACY_VIEW_METHODS } },
    });
    const registrar = await nativeSigner(devAccounts(1)[0]!.privateKey);
    const registered = await registerPointer(node.node.native, registrar, 'utest');
    expect(registered.code, registered.log).to.equal(0);
    pointer = hexlify(pointerAddressOf('utest'));
    const valueTransfer = await sign(devWallet(3), {
      to: evmReceiver,
      value: 1000n,
      gasLimit: 21_000n,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: 2n * GWEI,
      nonce: 0,
      chainId: 713714n,
    });
    const tokenTransfer = await sign(devWallet(4), {
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
    const [bankSigner, pointerSigner] = await Promise.all([
      nativeSigner(bankSender!.privateKey),
      nativeSigner(pointerSender!.privateKey),
    ]);

    // All right after a block commits, so that all land in the next one.
    await nextBlocks(node.node.chain);
    native = [
      await submitSend(node, bankSigner, castOf(bankReceiver), { denom: 'usei', amount: '3' }),
      await submitSend(node, pointerSigner, castOf(pointerReceiver), { denom: 'utest', amount: '7' }),
    ];
    evm = [await submit(node.url, valueTransfer), await submit(node.url, tokenTransfer)];
    const receipts = await Promise.all(evm.map((hash) => waitForReceipt(node.url, hash)));
    expect(receipts.map((receipt) => receipt.blockNumber)).to.deep.equal([
      receipts[0].blockNumber,
      receipts[0].blockNumber,
    ]);
    height = receipts[0].blockNumber;
    blockHash = receipts[0].blockHash;
    const stored = (await node.node.chain.store.blockAt(Number(height)))!;
    expect(stored.nativeTransactions).to.deep.equal(native);
    [pointerTransfer] = stored.synthetic.ext as [string];
    bankSends = [stored.synthetic.ext2[0]!, stored.synthetic.ext2[1]!];
    // decisions.md D5: the pointer send is a bank send in ext2, a pointer transfer (with its Transfer log) in ext.
    expect(stored.synthetic.ext2).to.deep.equal(bankSends);
  });
  after(() => node.stop());

  it('lists the EVM transactions: alone (eth), after the pointer transfer (ext), after the bank sends (ext2)', async () => {
    const lists = async (method: string, ref: string) =>
      (await rpc(node.url, method, [ref, false])).result.transactions;
    expect(await lists('eth_getBlockByNumber', height)).to.deep.equal(evm);
    expect(await lists('ext_getBlockByNumber', height)).to.deep.equal([pointerTransfer, ...evm]);
    expect(await lists('ext2_getBlockByNumber', height)).to.deep.equal([...bankSends, ...evm]);
    expect(await lists('ext_getBlockByHash', blockHash)).to.deep.equal([pointerTransfer, ...evm]);
    expect(await lists('ext2_getBlockByHash', blockHash)).to.deep.equal([...bankSends, ...evm]);
    const counts = await Promise.all(
      ['eth', 'ext', 'ext2'].flatMap((prefix) => [
        rpc(node.url, `${prefix}_getBlockTransactionCountByNumber`, [height]),
        rpc(node.url, `${prefix}_getBlockTransactionCountByHash`, [blockHash]),
      ]),
    );
    expect(counts.map((answer) => answer.result)).to.deep.equal(['0x2', '0x2', '0x3', '0x3', '0x4', '0x4']);
  });

  it('gives each transaction the same index in the block, by index and in its receipt, per view', async () => {
    const views = {
      eth: evm,
      ext: [pointerTransfer, ...evm],
      ext2: [...bankSends, ...evm],
    };
    for (const [prefix, hashes] of Object.entries(views)) {
      const full: any[] = (await rpc(node.url, `${prefix}_getBlockByNumber`, [height, true])).result.transactions;
      expect(
        full.map((tx: any) => [tx.hash, tx.transactionIndex]),
        prefix,
      ).to.deep.equal(hashes.map((hash, index) => [hash, quantity(index)]));
      const receipts: any[] = (await rpc(node.url, `${prefix}_getBlockReceipts`, [height])).result;
      expect(
        receipts.map((receipt: any) => [receipt.transactionHash, receipt.transactionIndex]),
        prefix,
      ).to.deep.equal(hashes.map((hash, index) => [hash, quantity(index)]));
    }
    for (const prefix of ['eth', 'ext'] as const) {
      for (const [index, hash] of views[prefix].entries()) {
        const byNumber = await rpc(node.url, `${prefix}_getTransactionByBlockNumberAndIndex`, [
          height,
          quantity(index),
        ]);
        const byHash = await rpc(node.url, `${prefix}_getTransactionByBlockHashAndIndex`, [blockHash, quantity(index)]);
        const receipt = await rpc(node.url, `${prefix}_getTransactionReceipt`, [hash]);
        expect([byNumber.result.hash, byNumber.result.transactionIndex]).to.deep.equal([hash, quantity(index)]);
        expect(byHash.result).to.deep.equal(byNumber.result);
        expect(receipt.result.transactionIndex).to.equal(quantity(index));
      }
      const past = await rpc(node.url, `${prefix}_getTransactionByBlockNumberAndIndex`, [
        height,
        quantity(views[prefix].length),
      ]);
      expect(past.result).to.equal(null);
    }
  });

  it('answers the pointer transfer in the ext view: synthetic transaction, receipt of type 0xffffffff, logs first', async () => {
    const from = devAccounts(3)[2]!.address;
    const synthetic = {
      blockHash,
      blockNumber: height,
      from,
      to: pointer,
      hash: pointerTransfer,
      transactionIndex: '0x0',
      value: '0x0',
      synthetic: true,
    };
    expect((await rpc(node.url, 'ext_getTransactionByBlockNumberAndIndex', [height, '0x0'])).result).to.deep.include(
      synthetic,
    );
    expect((await rpc(node.url, 'ext_getTransactionByHash', [pointerTransfer])).result).to.deep.include(synthetic);
    const transferLog = {
      address: pointer,
      topics: [TRANSFER_TOPIC, word(from), word(pointerReceiver)],
      data: word('7'),
      blockNumber: height,
      transactionHash: pointerTransfer,
      transactionIndex: '0x0',
      blockHash,
      logIndex: '0x0',
      removed: false,
      synthetic: true,
    };
    const receipt = (await rpc(node.url, 'ext_getTransactionReceipt', [pointerTransfer])).result;
    expect(receipt).to.deep.include({
      blockHash,
      blockNumber: height,
      contractAddress: null,
      cumulativeGasUsed: '0x0',
      effectiveGasPrice: '0x0',
      from,
      gasUsed: '0x0',
      logs: [transferLog],
      status: '0x1',
      to: pointer,
      transactionHash: pointerTransfer,
      transactionIndex: '0x0',
      type: '0xffffffff',
    });
    // In ext2 the same native send is a bank send, without the pointer's log (decisions.md D5).
    const ext2Receipts = (await rpc(node.url, 'ext2_getBlockReceipts', [height])).result;
    expect(ext2Receipts[0]).to.deep.include({ transactionHash: bankSends[0], type: '0xffffffff', logs: [] });
    expect(ext2Receipts[1]).to.deep.include({ transactionHash: bankSends[1], type: '0xffffffff', logs: [] });
    // eth_ knows none of it.
    expect((await rpc(node.url, 'eth_getTransactionReceipt', [pointerTransfer])).result).to.equal(null);
    expect((await rpc(node.url, 'eth_getTransactionByHash', [pointerTransfer])).result).to.equal(null);
  });

  it('numbers the EVM token transfer log after the synthetic one in the ext view, as the ext log query does, and first in ext2', async () => {
    const evmLog = (transactionIndex: string, logIndex: string) => ({
      address: pointer,
      topics: [TRANSFER_TOPIC, word(devWallet(4).address), word(tokenReceiver)],
      data: word('5'),
      blockNumber: height,
      transactionHash: evm[1],
      transactionIndex,
      blockHash,
      logIndex,
      removed: false,
    });
    expect((await rpc(node.url, 'eth_getTransactionReceipt', [evm[1]])).result.logs).to.deep.equal([
      evmLog('0x1', '0x0'),
    ]);
    const extLog = { ...evmLog('0x2', '0x1'), synthetic: false };
    expect((await rpc(node.url, 'ext_getTransactionReceipt', [evm[1]])).result.logs).to.deep.equal([extLog]);
    expect((await rpc(node.url, 'ext_getBlockReceipts', [height])).result[2].logs).to.deep.equal([extLog]);
    expect((await rpc(node.url, 'ext2_getBlockReceipts', [height])).result[3].logs).to.deep.equal([
      { ...evmLog('0x3', '0x0'), synthetic: false },
    ]);
    const logQuery = new IndexedLogQuery(
      node.node.chain,
      { maxBlocks: 2000, maxOpenEndedLogs: 10_000, clientShare: 1 },
      new HeldAnswers(256 * 1024 * 1024),
    );
    const logs = (await logQuery.logs({ blockHash: blockHash as `0x${string}`, topics: [] }, 'ext')).toJSON() as any[];
    expect(logs.map((log: any) => [log.transactionHash, log.transactionIndex, log.logIndex])).to.deep.equal([
      [pointerTransfer, '0x0', '0x0'],
      [evm[1], '0x2', '0x1'],
    ]);
  });

  it('ext_getTransactionByHash shows native transactions in synthetic form; eth_ refuses them', async () => {
    const bankSend = (await rpc(node.url, 'ext_getTransactionByHash', [native[0]])).result;
    expect(bankSend).to.deep.equal({
      blockHash,
      blockNumber: height,
      blockTimestamp: bankSend.blockTimestamp,
      from: bankSender!.address,
      gas: '0x0',
      gasPrice: '0x0',
      hash: bankSends[0],
      input: '0x',
      nonce: '0x0',
      to: bankReceiver.toLowerCase(),
      transactionIndex: '0x0',
      value: quantity(3n * WEI_PER_USEI),
      type: '0x0',
      v: '0x0',
      r: '0x0',
      s: '0x0',
      synthetic: true,
    });
    // A native send of a denomination with a pointer shows as its pointer transfer, which ext lists.
    expect((await rpc(node.url, 'ext_getTransactionByHash', [native[1]])).result).to.deep.include({
      hash: pointerTransfer,
      transactionIndex: '0x0',
    });
    expect(await rpc(node.url, 'eth_getTransactionByHash', [native[0]])).to.deep.include({
      error: { code: -32000, message: `transaction ${native[0]} is a native transaction, not an EVM transaction` },
    });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bech32 } from '@scure/base';
import { expect } from 'chai';
import { hexlify, Interface, Wallet } from 'ethers';
import {
  Bucket,
  bucketKey,
  Database,
  devAccounts,
  HeldAnswers,
  pointerAddressOf,
  SyntheticTxError,
  type NativeLayer,
} from '@evmnode/core';
import { IndexedLogQuery, StoredChainViews } from '@evmnode/core/internal';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { balanceOf, devWallet, FEE_COLLECTOR, nextBlocks, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
import { nativeSigner, registerPointer, sendNative, signNative, type NativeSigner } from '../support/native-kit.js';

const WEI_PER_USEI = 10n ** 12n;
/** keccak256(RLP('')): the root of an empty trie. */
const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
/** What a native transaction pays at the local minimum (1 gwei) for 200,000 gas: 200 usei. */
const FEE = [{ denom: 'usei', amount: '200' }];

const send = (from: string, to: string, amount: { denom: string; amount: string }[]) => ({
  typeUrl: '/cosmos.bank.v1beta1.MsgSend',
  value: { fromAddress: from, toAddress: to, amount },
});
const castOf = (evmAddress: string): string =>
  bech32.encode('sei', bech32.toWords(Buffer.from(evmAddress.slice(2), 'hex')));

describe('native layer: bank, auth, association, native transactions', function () {
  this.timeout(60_000);
  let node: TestNode;
  let native: NativeLayer;
  let dev0: NativeSigner;

  before(async () => {
    // A public node's share of the places one client may hold, not the local profile's 1.
    node = await startTestNode({ config: { consensus: { block_time: 200 }, evm: { max_client_share: 0.25 } } });
    native = node.node.native;
    dev0 = await nativeSigner(devAccounts(1)[0]!.privateKey);
  });
  after(() => node.stop());

  it('gives the genesis dev accounts native accounts, usei = wei / 10^12 and utest', async () => {
    const account = await native.account(dev0.address);
    expect(account).to.include({ address: dev0.address, accountNumber: 0n, sequence: 0n });
    expect(await native.allBalances(dev0.address)).to.deep.equal([
      { denom: 'usei', amount: 10_000n * 10n ** 6n },
      { denom: 'utest', amount: 1_000_000n },
    ]);
  });

  it('moves usei to a cast address: eth_getBalance changes by amount x 10^12, the sender pays amount + fee', async () => {
    const fresh = Wallet.createRandom().address.toLowerCase();
    const senderEvm = devAccounts(1)[0]!.address;
    const before = await balanceOf(node.url, senderEvm);
    const collectorBefore = await balanceOf(node.url, FEE_COLLECTOR);
    const record = await sendNative(
      native,
      dev0,
      [send(dev0.address, castOf(fresh), [{ denom: 'usei', amount: '1234' }])],
      { fee: FEE },
    );
    expect(record).to.include({ code: 0, log: '' });
    expect(await balanceOf(node.url, fresh)).to.equal(1234n * WEI_PER_USEI);
    expect(await balanceOf(node.url, senderEvm)).to.equal(before - (1234n + 200n) * WEI_PER_USEI);
    expect(await balanceOf(node.url, FEE_COLLECTOR)).to.equal(collectorBefore + 200n * WEI_PER_USEI);
    expect((await native.account(castOf(fresh)))?.sequence).to.equal(0n);
    expect((await native.account(dev0.address))?.sequence).to.equal(1n);
    const transfer = record.events.find(({ type }) => type === 'transfer');
    expect(transfer?.attributes).to.deep.equal([
      { key: 'recipient', value: castOf(fresh) },
      { key: 'sender', value: dev0.address },
      { key: 'amount', value: '1234usei' },
    ]);
  });

  it('keeps wei remainders when an association moves the cast account to the EVM address', async () => {
    const key = Wallet.createRandom();
    const signer = await nativeSigner(key.privateKey);
    const evm = key.address.toLowerCase();
    const castEvm = hexlify(Buffer.from(bech32.fromWords(bech32.decode(signer.address as `sei1${string}`).words)));
    // Native funds to the key's native address wait in its cast account.
    await sendNative(
      native,
      dev0,
      [
        send(dev0.address, signer.address, [
          { denom: 'usei', amount: '5' },
          { denom: 'utest', amount: '9' },
        ]),
      ],
      { fee: FEE },
    );
    expect(await balanceOf(node.url, castEvm)).to.equal(5n * WEI_PER_USEI);
    // EVM value with a wei remainder goes to the EVM address.
    const remainder = 1_500_000_000_007n;
    const hash = await submit(node.url, await sign(devWallet(1), { to: evm, value: remainder, nonce: 0 }));
    await waitForReceipt(node.url, hash);

    const associated = await sendNative(
      native,
      signer,
      [{ typeUrl: '/evmnode.native.v1.MsgAssociate', value: { sender: signer.address, customMessage: 'hi' } }],
      { fee: [] },
    );
    expect(associated.code).to.equal(0);
    expect(await balanceOf(node.url, evm)).to.equal(5n * WEI_PER_USEI + remainder);
    expect(await balanceOf(node.url, castEvm)).to.equal(0n);
    expect(await native.allBalances(signer.address)).to.deep.equal([
      { denom: 'usei', amount: 6n },
      { denom: 'utest', amount: 9n },
    ]);
    const lookup = await rpc(node.url, 'eth_call', [
      { to: '0x0000000000000000000000000000000000001004', data: `0x0c3c20ed${evm.slice(2).padStart(64, '0')}` },
    ]);
    expect(lookup.result).to.include(Buffer.from(signer.address).toString('hex'));

    const again = await native.submit(
      await signNative(signer, {
        messages: [
          { typeUrl: '/evmnode.native.v1.MsgAssociate', value: { sender: signer.address, customMessage: '' } },
        ],
        sequence: 1n,
        accountNumber: (await native.account(signer.address))!.accountNumber,
        fee: [],
      }),
    );
    expect(again).to.include({ code: 2, codespace: 'evm', log: 'account already has association set' });
  });

  it('refuses a transaction at once while 1,000 wait for their admission check, as a full mempool', async () => {
    // Undecodable: each fails its check at once, but all are asked for before any check runs.
    const junk = Uint8Array.of(1, 2, 3);
    const checks = await Promise.all(Array.from({ length: 1_100 }, () => native.submit(junk)));
    const full = checks.filter((check) => check.code === 20);
    expect(full).to.have.length(100);
    expect(full[0]!.log).to.equal('mempool is full: 1000 transactions waiting to be checked: mempool is full');
    expect(checks.slice(0, 1_000).every((check) => check.code !== 20)).to.equal(true);
    // Once they are checked, the next waits for its own check again.
    expect((await native.submit(junk)).code).to.equal(checks[0]!.code);
  });

  it("gives one client max_client_share of the 1,000 places, and another client's transaction its check", async () => {
    const junk = Uint8Array.of(1, 2, 3);
    // A share of 0.25: 250 places.
    const checks = await Promise.all([
      ...Array.from({ length: 251 }, () => native.submit(junk, { clientId: '192.0.2.1' })),
      native.submit(junk, { clientId: '192.0.2.2' }),
    ]);
    const full = checks.filter((check) => check.code === 20);
    expect(full).to.have.length(1);
    expect(full[0]!.log).to.equal(
      'mempool is full: this client has 250 transactions waiting to be checked: mempool is full',
    );
    expect(checks[250]).to.equal(full[0]);
    expect(checks[251]!.code).to.equal(checks[0].code);
    // Its places come back with the checks.
    expect((await native.submit(junk, { clientId: '192.0.2.1' })).code).to.equal(checks[0].code);
  });

  it('refuses a free association of an account without funds', async () => {
    const signer = await nativeSigner(Wallet.createRandom().privateKey);
    // A send gives it an account, then it spends nothing: it holds no wei.
    await sendNative(native, dev0, [send(dev0.address, signer.address, [{ denom: 'utest', amount: '1' }])], {
      fee: FEE,
    });
    const checked = await native.submit(
      await signNative(signer, {
        messages: [
          { typeUrl: '/evmnode.native.v1.MsgAssociate', value: { sender: signer.address, customMessage: '' } },
        ],
        sequence: 0n,
        accountNumber: (await native.account(signer.address))!.accountNumber,
        fee: [],
      }),
    );
    expect(checked).to.include({
      code: 3,
      codespace: 'evm',
      log: 'account needs to have at least 1 wei to force association',
    });
  });

  it("refuses a memo over the SDK's 256 bytes with code 12, counting bytes, and admits one of 256", async () => {
    const account = (await native.account(dev0.address))!;
    const withMemo = (memo: string) =>
      signNative(dev0, {
        messages: [send(dev0.address, castOf(Wallet.createRandom().address), [{ denom: 'utest', amount: '1' }])],
        sequence: account.sequence,
        accountNumber: account.accountNumber,
        fee: FEE,
        memo,
      });
    // 128 two-byte characters and one more byte.
    expect(await native.submit(await withMemo(`${'é'.repeat(128)}x`))).to.include({
      code: 12,
      codespace: 'sdk',
      log: 'maximum number of characters is 256 but received 257 characters: memo too large',
    });
    const checked = await native.submit(await withMemo('x'.repeat(256)));
    expect(checked.code).to.equal(0);
    expect((await native.whenIncluded(checked.hash, 20_000))?.code).to.equal(0);
  });

  it('records a failed message with its code and log; the fee and sequence still count', async () => {
    const sequence = (await native.account(dev0.address))!.sequence;
    const record = await sendNative(
      native,
      dev0,
      [send(dev0.address, castOf(Wallet.createRandom().address), [{ denom: 'utest', amount: '2000000' }])],
      { fee: FEE },
    );
    expect(record).to.include({
      code: 5,
      codespace: 'sdk',
      log: `failed to execute message; message index: 0: spendable balance ${await native.balance(dev0.address, 'utest')}utest is smaller than 2000000utest: insufficient funds`,
    });
    expect((await native.account(dev0.address))!.sequence).to.equal(sequence + 1n);
  });

  it('stores synthetic transactions for the ext views only, and a Transfer log once utest has a pointer', async () => {
    const to = Wallet.createRandom().address.toLowerCase();
    const plain = await sendNative(
      native,
      dev0,
      [
        send(dev0.address, castOf(to), [
          { denom: 'usei', amount: '3' },
          { denom: 'utest', amount: '7' },
        ]),
      ],
      { fee: FEE },
    );
    const plainBlock = (await node.node.chain.store.blockAt(plain.height))!;
    expect(plainBlock.synthetic.ext).to.deep.equal([]);
    expect(plainBlock.synthetic.ext2).to.have.length(1);
    const bankSend = (await node.node.chain.store.syntheticTransaction(plainBlock.synthetic.ext2[0]!))!;
    expect(bankSend).to.deep.include({
      kind: 'bank-send',
      from: devAccounts(1)[0]!.address,
      to,
      value: `0x${(3n * WEI_PER_USEI).toString(16)}`,
      input: '0x',
      logs: [],
    });

    const registered = await sendNative(
      native,
      dev0,
      [{ typeUrl: '/evmnode.native.v1.MsgRegisterPointer', value: { sender: dev0.address, denom: 'utest' } }],
      { fee: [{ denom: 'usei', amount: '300' }], gas: 300_000n },
    );
    expect(registered.code, registered.log).to.equal(0);
    const pointer = hexlify(pointerAddressOf('utest'));
    const withPointer = await sendNative(
      native,
      dev0,
      [send(dev0.address, castOf(to), [{ denom: 'utest', amount: '7' }])],
      { fee: FEE },
    );
    const block = (await node.node.chain.store.blockAt(withPointer.height))!;
    expect(block.synthetic.ext).to.have.length(1);
    expect(block.synthetic.ext2).to.have.length(1);
    const transfer = (await node.node.chain.store.syntheticTransaction(block.synthetic.ext[0]!))!;
    const word = (hex: string) => `0x${hex.replace(/^0x/, '').padStart(64, '0')}`;
    expect(transfer).to.deep.include({
      kind: 'pointer-transfer',
      from: devAccounts(1)[0]!.address,
      to: pointer,
      value: '0x0',
    });
    expect(transfer.logs).to.deep.equal([
      {
        address: pointer,
        topics: [
          '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
          word(devAccounts(1)[0]!.address),
          word(to),
        ],
        data: word('7'),
        logIndex: 0,
        transactionIndex: 0,
        transactionHash: transfer.hash,
      },
    ]);
    // The legacy views list them first, through the core service; eth_ sees none of it.
    const views = new StoredChainViews(node.node.chain, new HeldAnswers(256 * 1024 * 1024));
    const ref = { kind: 'number', number: BigInt(block.height) } as const;
    const ext = (await views.block(ref, true, 'ext'))!;
    expect(ext.transactions).to.deep.equal([
      {
        blockHash: block.hash,
        blockNumber: `0x${block.height.toString(16)}`,
        blockTimestamp: block.timestamp,
        from: devAccounts(1)[0]!.address,
        gas: '0x0',
        gasPrice: '0x0',
        hash: transfer.hash,
        input: `0xa9059cbb${word(to).slice(2)}${word('7').slice(2)}`,
        nonce: '0x0',
        to: pointer,
        transactionIndex: '0x0',
        value: '0x0',
        type: '0x0',
        v: '0x0',
        r: '0x0',
        s: '0x0',
        synthetic: true,
      },
    ]);
    expect((await views.block(ref, false, 'ext2'))!.transactions).to.deep.equal(block.synthetic.ext2);
    expect(await views.transactionCount(ref, 'ext2')).to.equal('0x1');
    expect(await views.transactionCount(ref, 'eth')).to.equal('0x0');
    // eth_ sees none of it: no transactions, and the index counts EVM transactions only.
    const ethBlock = await rpc(node.url, 'eth_getBlockByNumber', [`0x${block.height.toString(16)}`, true]);
    expect(ethBlock.result.transactions).to.deep.equal([]);
    // The reference node's root for a view without transactions; a view that lists some has the data hash.
    expect(ethBlock.result.transactionsRoot).to.equal(EMPTY_TRIE_ROOT);
    expect((await views.block(ref, false, 'ext2'))!.transactionsRoot).to.equal(block.header.dataHash);
    expect(
      (await rpc(node.url, 'eth_getBlockTransactionCountByNumber', [`0x${block.height.toString(16)}`])).result,
    ).to.equal('0x0');
    expect((await rpc(node.url, 'eth_getTransactionByHash', [transfer.hash])).result).to.equal(null);
    const nativeHash = `0x${Buffer.from(withPointer.hash).toString('hex')}`;
    expect((await rpc(node.url, 'eth_getTransactionByHash', [nativeHash])).error).to.deep.equal({
      code: -32000,
      message: `transaction ${nativeHash} is a native transaction, not an EVM transaction`,
    });
  });
});

describe('a synthetic transaction its block names but the store lacks', function () {
  this.timeout(60_000);
  let home: string;
  let node: TestNode | undefined;

  before(() => {
    home = mkdtempSync(path.join(tmpdir(), 'evmnode-synthetic-'));
  });
  after(async () => {
    await node?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('makes the legacy block view fail with -32501, and leaves the eth view whole', async () => {
    node = await startTestNode({ home, config: { consensus: { block_time: 100 } } });
    const dev0 = await nativeSigner(devAccounts(1)[0]!.privateKey);
    const to = castOf(Wallet.createRandom().address);
    const record = await sendNative(
      node.node.native,
      dev0,
      [send(dev0.address, to, [{ denom: 'usei', amount: '1' }])],
      { fee: FEE },
    );
    const [bankSend] = (await node.node.chain.store.blockAt(record.height))!.synthetic.ext2;
    await node.stop();
    node = undefined;

    // Lose the record behind the node's back, then serve the same chain again.
    const database = await Database.openInHome(home);
    const batch = database.batch();
    batch.del(bucketKey(Bucket.Synthetic, Buffer.from(bankSend!.slice(2), 'hex')));
    await batch.write();
    await database.close();
    node = await startTestNode({ home, config: { consensus: { block_time: 100 } } });

    const views = new StoredChainViews(node.node.chain, new HeldAnswers(256 * 1024 * 1024));
    const ref = { kind: 'number', number: BigInt(record.height) } as const;
    const failure = await views.block(ref, true, 'ext2').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(SyntheticTxError);
    expect(failure).to.include({
      code: -32501,
      message: `synthetic transaction ${bankSend} of block ${record.height} has no stored record`,
    });
    expect((await views.block(ref, true, 'eth'))!.transactions).to.deep.equal([]);
  });
});

describe('log queries in the ext view: synthetic pointer-transfer logs first in their block', function () {
  this.timeout(60_000);
  let node: TestNode;
  before(async () => {
    // Long blocks, so that an EVM and a native transaction sent together share one.
    node = await startTestNode({ config: { consensus: { block_time: 1000 } } });
  });
  after(() => node.stop());

  it('numbers a block synthetic logs first, shifting its EVM logs, and keeps them out of the eth view', async () => {
    const registrar = await nativeSigner(devAccounts(1)[0]!.privateKey);
    const registered = await registerPointer(node.node.native, registrar, 'utest');
    expect(registered.code, registered.log).to.equal(0);
    const pointer = hexlify(pointerAddressOf('utest'));
    const [evmSender, evmReceiver, nativeReceiver] = [devWallet(2), devWallet(3), Wallet.createRandom().address];
    const transferData = new Interface([
      'function transfer(address to, uint256 value) returns (bool)',
    ]).encodeFunctionData('transfer', [evmReceiver.address, 5n]);
    const raw = await sign(evmSender, {
      to: pointer,
      data: transferData,
      gasLimit: 200_000n,
      nonce: 0,
      chainId: 713714n,
    });

    // Both right after a block commits, so that both land in the next one.
    await nextBlocks(node.node.chain);
    const evmHash = await submit(node.url, raw);
    const native = await sendNative(
      node.node.native,
      registrar,
      [send(registrar.address, castOf(nativeReceiver), [{ denom: 'utest', amount: '7' }])],
      { fee: FEE },
    );
    const receipt = await waitForReceipt(node.url, evmHash);
    expect(Number(receipt.blockNumber)).to.equal(native.height);
    const block = (await node.node.chain.store.blockAt(native.height))!;
    const [syntheticHash] = block.synthetic.ext;

    const logQuery = new IndexedLogQuery(
      node.node.chain,
      { maxBlocks: 2000, maxOpenEndedLogs: 10_000, clientShare: 1 },
      new HeldAnswers(256 * 1024 * 1024),
    );
    const criteria = { blockHash: block.hash, addresses: [pointer as `0x${string}`], topics: [] };
    const word = (hex: string) => `0x${hex.replace(/^0x/, '').toLowerCase().padStart(64, '0')}`;
    const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
    const common = {
      address: pointer,
      blockNumber: `0x${block.height.toString(16)}`,
      blockHash: block.hash,
      removed: false,
    };
    const evmLog = {
      ...common,
      topics: [transferTopic, word(evmSender.address), word(evmReceiver.address)],
      data: word('5'),
      transactionHash: evmHash,
    };
    expect((await logQuery.logs(criteria)).toJSON()).to.deep.equal([
      { ...evmLog, transactionIndex: '0x0', logIndex: '0x0' },
    ]);
    expect((await logQuery.logs(criteria, 'ext')).toJSON()).to.deep.equal([
      {
        ...common,
        topics: [transferTopic, word(devAccounts(1)[0]!.address), word(nativeReceiver)],
        data: word('7'),
        transactionHash: syntheticHash,
        transactionIndex: '0x0',
        logIndex: '0x0',
        synthetic: true,
      },
      { ...evmLog, transactionIndex: '0x1', logIndex: '0x1', synthetic: false },
    ]);
    // A cursor inside the block (as a filter keeps) resumes in the view's numbering.
    const after = await logQuery.find(
      criteria,
      block.height,
      block.height,
      10,
      { height: block.height, logIndex: 0 },
      'ext',
    );
    expect(after.map(({ position }) => position)).to.deep.equal([{ height: block.height, logIndex: 1 }]);
  });
});

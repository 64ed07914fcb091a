import { expect } from 'chai';
import { keccak256, toBeHex, Wallet, zeroPadValue } from 'ethers';
import { castNativeAddress, devAccounts } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, GWEI, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { post, rpc } from '../support/rpc-client.js';
import { nativeSigner, signNative } from '../support/native-kit.js';

const QUERY_METHODS = [
  'ext_queryState',
  'ext_queryStorage',
  'ext_callNative',
  'ext_callCosmos',
  'ext_estimateNativeGas',
  'ext_estimateCosmosGas',
  'ext_queryEvents',
];
const DEV_NATIVE = 'sei15428vq2uzwhm3taey9sr9x5vm6tk78ew5cyfgc';
/** keccak256 of empty code. */
const EMPTY_CODE_HASH = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
const bytesOf = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));

describe('the legacy ext_ queries', function () {
  this.timeout(60_000);
  let node: TestNode;
  const dev = devAccounts(1)[0]!;
  const receiver = Wallet.createRandom().address.toLowerCase();
  /** The block of the transfer to `receiver`. */
  let transferBlock: string;
  /** A contract whose creation logged one empty log and stored slot k = k + 1 for k from 0 to 4 (and left no code). */
  let contract: string;
  let contractBlock: string;
  /** The native bank send of 5 utest to `receiver` (the ext_estimateNativeGas tests deliver it): its hash, block and sender. */
  let send: { hash: string; block: string; sender: string };

  before(async () => {
    // One simulation at a time, so that the limiter's refusal can be seen.
    node = await startTestNode({
      config: { evm: { enabled_legacy_ext_apis: QUERY_METHODS, max_concurrent_simulation_calls: 1 } },
    });
    const raw = await sign(devWallet(0), {
      to: receiver,
      value: 3n * 10n ** 12n + 5n,
      gasLimit: 21_000n,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: 1n * GWEI,
      nonce: 0,
      chainId: 713714n,
    });
    transferBlock = (await waitForReceipt(node.url, await submit(node.url, raw))).blockNumber;
    const stores = [0, 1, 2, 3, 4].map((slot) => `60${toBeHex(slot + 1, 1).slice(2)}60${toBeHex(slot, 1).slice(2)}55`);
    const creation = await sign(devWallet(1), {
      data: `0x60006000a0${stores.join('')}00`,
      gasLimit: 200_000n,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: 1n * GWEI,
      nonce: 0,
      chainId: 713714n,
    });
    const created = await waitForReceipt(node.url, await submit(node.url, creation));
    [contract, contractBlock] = [created.contractAddress, created.blockNumber];
  });
  after(() => node.stop());

  describe('ext_queryState', () => {
    it('shows a dev account at genesis by its EVM address', async () => {
      const answer = await rpc(node.url, 'ext_queryState', [dev.address, '0x0']);
      expect(answer.result).to.deep.equal({
        evmAddress: dev.address.toLowerCase(),
        nativeAddress: 'sei15428vq2uzwhm3taey9sr9x5vm6tk78ew5cyfgc',
        association: 'associated',
        balances: [
          { denom: 'usei', amount: '10000000000' },
          { denom: 'utest', amount: '1000000' },
        ],
        nonce: '0x0',
        codeHash: EMPTY_CODE_HASH,
        blockNumber: '0x0',
      });
      const latest = await rpc(node.url, 'ext_queryState', ['sei15428vq2uzwhm3taey9sr9x5vm6tk78ew5cyfgc']);
      expect([latest.result.evmAddress, latest.result.nonce]).to.deep.equal([dev.address.toLowerCase(), '0x1']);
    });

    it('shows an unassociated receiver as cast, by either address, with its balance in usei', async () => {
      const expected = {
        evmAddress: receiver,
        nativeAddress: castNativeAddress(bytesOf(receiver)),
        association: 'cast',
        balances: [{ denom: 'usei', amount: '3' }],
        nonce: '0x0',
        codeHash: EMPTY_CODE_HASH,
        blockNumber: transferBlock,
      };
      expect((await rpc(node.url, 'ext_queryState', [receiver, transferBlock])).result).to.deep.equal(expected);
      expect(
        (await rpc(node.url, 'ext_queryState', [expected.nativeAddress, { blockNumber: transferBlock }])).result,
      ).to.deep.equal(expected);
    });

    it('refuses an address that is neither hex nor bech32', async () => {
      const answer = await rpc(node.url, 'ext_queryState', ['cosmos1xyz']);
      expect(answer.error).to.deep.equal({
        code: -32602,
        message: 'invalid argument 0: decoding bech32 failed: invalid data length',
      });
    });
  });

  describe('ext_queryStorage', () => {
    /** The five slots as the trie orders them: by keccak256 of the 32-byte slot. */
    const slotsInOrder = () =>
      [0, 1, 2, 3, 4]
        .map((slot) => ({
          hashedKey: keccak256(zeroPadValue(toBeHex(slot), 32)),
          value: zeroPadValue(toBeHex(slot + 1), 32),
        }))
        .sort((a, b) => (a.hashedKey < b.hashedKey ? -1 : 1));

    it('lists every slot in one page by default', async () => {
      const answer = await rpc(node.url, 'ext_queryStorage', [contract]);
      expect(answer.result).to.deep.equal({
        slots: slotsInOrder(),
        nextCursor: null,
        blockNumber: answer.result.blockNumber,
      });
      expect(Number(answer.result.blockNumber)).to.be.at.least(Number(contractBlock));
    });

    it('pages with limit and cursor, and reads an older block', async () => {
      const all = slotsInOrder();
      const pages = [];
      let cursor: string | undefined;
      do {
        const answer = await rpc(node.url, 'ext_queryStorage', [contract, { limit: 2, cursor }, contractBlock]);
        pages.push(answer.result);
        cursor = answer.result.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(pages).to.deep.equal([
        { slots: all.slice(0, 2), nextCursor: all[2]!.hashedKey, blockNumber: contractBlock },
        { slots: all.slice(2, 4), nextCursor: all[4]!.hashedKey, blockNumber: contractBlock },
        { slots: all.slice(4), nextCursor: null, blockNumber: contractBlock },
      ]);
      const before = await rpc(node.url, 'ext_queryStorage', [contract, {}, transferBlock]);
      expect(before.result).to.deep.equal({ slots: [], nextCursor: null, blockNumber: transferBlock });
    });

    it('refuses a limit out of range or of the wrong type with -32602', async () => {
      const call = (page: unknown) => rpc(node.url, 'ext_queryStorage', [contract, page]);
      expect((await call({ limit: 1001 })).error).to.deep.equal({
        code: -32602,
        message: 'invalid argument 1: limit 1001 is out of range: it must be from 1 to 1000',
      });
      expect((await call({ limit: 0 })).error).to.deep.equal({
        code: -32602,
        message: 'invalid argument 1: limit 0 is out of range: it must be from 1 to 1000',
      });
      expect((await call({ limit: '0x2' })).error).to.deep.equal({
        code: -32602,
        message: 'invalid argument 1: json: cannot unmarshal string into Go struct field PageRequest.limit of type int',
      });
      expect((await call({ cursor: '0x12' })).error).to.deep.equal({
        code: -32602,
        message: 'invalid argument 1: hex string has length 2, want 64 for common.Hash',
      });
    });
  });

  describe('ext_callNative', () => {
    const call = (path: string, request: unknown, method = 'ext_callNative') =>
      rpc(node.url, method, [{ path, request }]);
    const castReceiver = () => castNativeAddress(bytesOf(receiver));

    it('answers the bank queries: balance, all balances and supply', async () => {
      const balance = await call('/cosmos.bank.v1beta1.Query/Balance', { address: DEV_NATIVE, denom: 'utest' });
      expect(balance.result).to.deep.equal({ balance: { denom: 'utest', amount: '1000000' } });
      const all = await call('/cosmos.bank.v1beta1.Query/AllBalances', { address: castReceiver() });
      expect(all.result).to.deep.equal({ balances: [{ denom: 'usei', amount: '3' }] });
      const supply = await call('/cosmos.bank.v1beta1.Query/SupplyOf', { denom: 'utest' });
      expect(supply.result).to.deep.equal({ amount: { denom: 'utest', amount: '10000000' } });
    });

    it('answers the account and association queries, also as ext_callCosmos', async () => {
      const account = await call('/cosmos.auth.v1beta1.Query/Account', { address: DEV_NATIVE }, 'ext_callCosmos');
      expect(account.result).to.deep.equal({
        account: {
          '@type': '/cosmos.auth.v1beta1.BaseAccount',
          address: DEV_NATIVE,
          pub_key: null,
          account_number: '0',
          sequence: '0',
        },
      });
      const native = await call('/seiprotocol.seichain.evm.Query/SeiAddressByEVMAddress', { evm_address: dev.address });
      expect(native.result).to.deep.equal({ sei_address: DEV_NATIVE, associated: true });
      const evm = await call('/seiprotocol.seichain.evm.Query/EVMAddressBySeiAddress', { sei_address: castReceiver() });
      expect(evm.result).to.deep.equal({ evm_address: receiver, associated: false });
    });

    it('refuses an unknown path and a bad request with -32602, a bad address and an unknown account as the SDK does', async () => {
      expect((await call('/cosmos.staking.v1beta1.Query/Validators', {})).error).to.deep.equal({
        code: -32602,
        message: 'invalid argument 0: unknown query path "/cosmos.staking.v1beta1.Query/Validators"',
      });
      expect((await call('/cosmos.bank.v1beta1.Query/Balance', { address: DEV_NATIVE })).error).to.deep.equal({
        code: -32602,
        message: 'invalid argument 0: missing required field QueryBalanceRequest.denom',
      });
      expect((await call('/cosmos.bank.v1beta1.Query/AllBalances', { address: 'sei1nope' })).error).to.deep.equal({
        code: -32000,
        message: 'invalid address: decoding bech32 failed: invalid data length',
      });
      expect((await call('/cosmos.auth.v1beta1.Query/Account', { address: castReceiver() })).error).to.deep.equal({
        code: -32001,
        message: `account ${castReceiver()} not found`,
      });
    });
  });

  describe('ext_estimateNativeGas', () => {
    const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
    /** A bank send of `amount` utest from dev account 2 to the receiver's cast address. */
    async function signedSend(amount: string, sequence?: bigint, messages = 1) {
      const signer = await nativeSigner(devAccounts(3)[2]!.privateKey);
      const account = (await node.node.native.account(signer.address))!;
      const message = {
        typeUrl: '/cosmos.bank.v1beta1.MsgSend',
        value: {
          fromAddress: signer.address,
          toAddress: castNativeAddress(bytesOf(receiver)),
          amount: [{ denom: 'utest', amount }],
        },
      };
      return signNative(signer, {
        messages: Array.from({ length: messages }, () => message),
        sequence: sequence ?? account.sequence,
        accountNumber: account.accountNumber,
      });
    }

    it('gives the gas the transaction then uses, committing nothing, also as ext_estimateCosmosGas', async () => {
      const raw = await signedSend('5');
      const estimated = await rpc(node.url, 'ext_estimateNativeGas', [base64(raw)]);
      const alias = await rpc(node.url, 'ext_estimateCosmosGas', [base64(raw)]);
      expect(alias.result).to.equal(estimated.result);
      // Nothing was applied: the same transaction (same sequence) is admitted and delivered.
      const checked = await node.node.native.submit(raw);
      expect(checked.code, checked.log).to.equal(0);
      const delivered = (await node.node.native.whenIncluded(checked.hash, 20_000))!;
      send = {
        hash: `0x${Buffer.from(checked.hash).toString('hex')}`,
        block: `0x${delivered.height.toString(16)}`,
        sender: (await nativeSigner(devAccounts(3)[2]!.privateKey)).address,
      };
      expect([delivered.code, estimated.result]).to.deep.equal([0, `0x${delivered.gasUsed.toString(16)}`]);
    });

    it('answers a failing ante check or message with -32000, the SDK log and its code', async () => {
      const wrongSequence = await rpc(node.url, 'ext_estimateNativeGas', [base64(await signedSend('5', 99n))]);
      expect(wrongSequence.error).to.deep.equal({
        code: -32000,
        message: 'account sequence mismatch, expected 1, got 99: incorrect account sequence',
        data: { codespace: 'sdk', code: 32 },
      });
      const tooMuch = await rpc(node.url, 'ext_estimateNativeGas', [base64(await signedSend('999999999'))]);
      expect(tooMuch.error).to.deep.equal({
        code: -32000,
        message:
          'failed to execute message; message index: 0: spendable balance 999995utest is smaller than 999999999utest: insufficient funds',
        data: { codespace: 'sdk', code: 5 },
      });
    });

    it('refuses a transaction that would use more gas than a block has, as admission does', async () => {
      const blockGas = BigInt((await rpc(node.url, 'eth_getBlockByNumber', ['latest', false])).result.gasLimit);
      // A send costs 20,000 gas and 5,000 per coin: one more than a block can hold.
      const messages = Number(blockGas / 25_000n) + 1;
      const raw = await signedSend('1', undefined, messages);
      const gasUsed = 10n * BigInt(raw.length) + 1_000n + 25_000n * BigInt(messages);
      expect((await rpc(node.url, 'ext_estimateNativeGas', [base64(raw)])).error).to.deep.equal({
        code: -32000,
        message: `tx gas used ${gasUsed} exceeds block max gas limit ${blockGas}: out of gas`,
        data: { codespace: 'sdk', code: 11 },
      });
    });

    it('runs one simulation at a time here (max_concurrent_simulation_calls), refusing the others with -32005', async () => {
      const estimate = { jsonrpc: '2.0', method: 'ext_estimateNativeGas', params: [base64(await signedSend('1'))] };
      const { text } = await post(node.url, JSON.stringify([1, 2, 3].map((id) => ({ ...estimate, id }))));
      const busy = { code: -32005, message: 'ext_estimateNativeGas rejected due to rate limit: server busy' };
      const answers = JSON.parse(text) as { id: number; result?: string; error?: object }[];
      expect(answers.map(({ id, error }) => ({ id, error }))).to.deep.equal([
        { id: 1, error: undefined },
        { id: 2, error: busy },
        { id: 3, error: busy },
      ]);
      expect(answers[0]!.result).to.match(/^0x[0-9a-f]+$/);
    });

    it('refuses what is not base64 or not a transaction with -32602', async () => {
      expect((await rpc(node.url, 'ext_estimateNativeGas', ['not base64!'])).error).to.deep.equal({
        code: -32602,
        message: 'invalid argument 0: illegal base64 data',
      });
      expect((await rpc(node.url, 'ext_estimateNativeGas', ['AAEC'])).error).to.deep.equal({
        code: -32602,
        message: 'TxRaw: premature EOF: tx parse error',
      });
      expect((await rpc(node.url, 'ext_estimateNativeGas', [])).error).to.deep.equal({
        code: -32602,
        message: 'missing value for required argument 0',
      });
    });
  });

  describe('ext_queryEvents', () => {
    const query = (filter: object) => rpc(node.url, 'ext_queryEvents', [filter]);

    it('lists EVM logs by type, as the ext view shows them', async () => {
      const [log] = (await rpc(node.url, 'eth_getLogs', [{ fromBlock: '0x0', address: contract }])).result;
      const answer = await query({ type: 'evm_log', fromBlock: '0x0', toBlock: 'latest' });
      expect(answer.result).to.deep.equal({
        events: [{ kind: 'evm', type: 'evm_log', ...log, synthetic: false }],
        nextCursor: null,
      });
    });

    it('lists the native events that name an account, by its EVM address', async () => {
      const answer = await query({ address: receiver, fromBlock: '0x0' });
      const cast = castNativeAddress(bytesOf(receiver));
      const event = (type: string, eventIndex: number, attributes: [string, string][]) => ({
        kind: 'native',
        type,
        attributes: attributes.map(([key, value]) => ({ key, value })),
        transactionHash: send.hash,
        eventIndex,
        blockNumber: send.block,
      });
      expect(answer.result).to.deep.equal({
        events: [
          event('coin_received', 4, [
            ['receiver', cast],
            ['amount', '5utest'],
          ]),
          event('transfer', 5, [
            ['recipient', cast],
            ['sender', send.sender],
            ['amount', '5utest'],
          ]),
        ],
        nextCursor: null,
      });
      const transfers = await query({ type: 'transfer', address: receiver, fromBlock: '0x0' });
      expect(transfers.result.events).to.deep.equal([answer.result.events[1]]);
    });

    it('pages through a range with limit and cursor', async () => {
      const all = (await query({ fromBlock: '0x0' })).result.events;
      const pages = [];
      let cursor: string | undefined;
      do {
        const answer = await query({ fromBlock: '0x0', limit: 3, cursor });
        pages.push(answer.result.events);
        cursor = answer.result.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(pages.flat()).to.deep.equal(all);
      expect(pages.map((page) => page.length)).to.deep.equal([3, 3, 2]);
      // The first page ends in a later block than it starts: a cursor carries a page across blocks.
      const blocksOf = (page: { blockNumber: string }[]) => new Set(page.map((event) => event.blockNumber)).size;
      expect(blocksOf(pages[0])).to.equal(2);
    });

    it('refuses a bad range, limit or cursor', async () => {
      expect((await query({ fromBlock: '0x5', toBlock: '0x1' })).error).to.deep.equal({
        code: -32000,
        message: 'requested fromBlock 5 is greater than toBlock 1',
      });
      const beyond = (await query({ fromBlock: '0x0', toBlock: '0xffffff' })).error;
      expect(beyond.code).to.equal(-32000);
      // The head moves on while the test runs.
      expect(beyond.message).to.match(/^requested toBlock 16777215 is after latest available block \d+$/);
      expect((await query({ limit: 1001 })).error).to.deep.equal({
        code: -32602,
        message: 'invalid argument 0: limit 1001 is out of range: it must be from 1 to 1000',
      });
      expect((await query({ cursor: 'x' })).error).to.deep.equal({
        code: -32602,
        message: 'invalid argument 0: invalid cursor "x"',
      });
    });
  });
});

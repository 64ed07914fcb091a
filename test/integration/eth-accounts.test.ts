import { expect } from 'chai';
import { AbiCoder, ContractFactory, Interface, Wallet, getCreateAddress, keccak256 } from 'ethers';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { testToken } from '@evmnode/tools/contracts/test-token';
import {
  DEV_BALANCE,
  ETHER,
  GWEI,
  devWallet,
  lower,
  quantity,
  sign,
  submit,
  submitTogether,
  waitForReceipt,
} from '../support/chain-kit.js';
import { errorOf, overHttp, overWs, resultOf, type Call } from '../support/rpc-answers.js';
import { WsClient } from '../support/ws-client.js';

/** Runtime code that returns 42. */
const ANSWER_RUNTIME = '0x602a60005260206000f3';
/** Init code that returns ANSWER_RUNTIME: PUSH10 <runtime> PUSH1 0 MSTORE PUSH1 10 PUSH1 22 RETURN. */
const ANSWER_INIT = `0x69${ANSWER_RUNTIME.slice(2)}600052600a6016f3`;
/** TestToken's storage layout: name, symbol, totalSupply, balanceOf. */
const BALANCE_OF_SLOT = 3;
const UNKNOWN_HASH = `0x${'ab'.repeat(32)}`;
const LATEST_TAGS = ['latest', 'safe', 'finalized', 'pending'];

/** A 32-byte storage word. */
const word = (value: bigint): string => `0x${value.toString(16).padStart(64, '0')}`;
const ZERO_WORD = word(0n);
/** The storage slot of `balanceOf[owner]`. */
const balanceSlot = (owner: string): string =>
  keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [owner, BALANCE_OF_SLOT]));
/** What a receipt's transaction paid in fees. */
const feeOf = (receipt: any): bigint => BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);

describe('eth accounts: eth_getBalance, eth_getCode, eth_getStorageAt, eth_getAccountInfo', function () {
  this.timeout(60_000);
  let node: TestNode;
  let call: Call;
  const owner = devWallet(6);
  const recipient = lower(Wallet.createRandom().address);
  const supply = 1000n * ETHER;
  const sent = 250n * ETHER;
  const value = 1_500_000_000_000_000_000n;
  const token = lower(getCreateAddress({ from: owner.address, nonce: 0 }));
  const answer = lower(getCreateAddress({ from: owner.address, nonce: 1 }));
  /** The block that deploys the token. */
  let deployed: any;
  /** The next block: the answer contract deployed, tokens and ETH sent to the recipient. */
  let moved: any;
  /** The owner's balance after each of them. */
  let ownerAfterDeploy: bigint;
  let ownerAfterMove: bigint;

  before(async () => {
    // Blocks only when transactions arrive, so that `latest` is the second block.
    node = await startTestNode({ config: { consensus: { block_time: 50, create_empty_blocks: false } } });
    call = overHttp(node.url);
    const { abi, bytecode } = testToken();
    const fees = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
    const { data } = await new ContractFactory(abi, bytecode).getDeployTransaction('Test', 'TST', supply);
    const deployment = await waitForReceipt(
      node.url,
      await submit(node.url, await sign(owner, { nonce: 0, to: null, data, gasLimit: 2_000_000n, ...fees })),
    );
    const hashes = await submitTogether(node.url, [
      await sign(owner, { nonce: 1, to: null, data: ANSWER_INIT, gasLimit: 100_000n, ...fees }),
      await sign(owner, {
        nonce: 2,
        to: token,
        data: new Interface(abi).encodeFunctionData('transfer', [recipient, sent]),
        gasLimit: 100_000n,
        ...fees,
      }),
      await sign(owner, { nonce: 3, to: recipient, value, ...fees }),
    ]);
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
    expect(receipts.map((receipt) => [receipt.status, receipt.blockNumber])).to.deep.equal(
      receipts.map(() => ['0x1', receipts[0].blockNumber]),
    );
    deployed = await resultOf(call, 'eth_getBlockByNumber', [deployment.blockNumber, false]);
    moved = await resultOf(call, 'eth_getBlockByNumber', ['latest', false]);
    expect(Number(moved.number)).to.equal(Number(deployed.number) + 1);
    ownerAfterDeploy = DEV_BALANCE - feeOf(deployment);
    ownerAfterMove = ownerAfterDeploy - receipts.reduce((sum, receipt) => sum + feeOf(receipt), 0n) - value;
  });
  after(() => node.stop());

  /** Every way of naming `block`: number, hash, and EIP-1898 objects. */
  const refsTo = (block: any): unknown[] => [
    block.number,
    block.hash,
    { blockNumber: block.number },
    { blockHash: block.hash },
    { blockHash: block.hash, requireCanonical: true },
  ];

  describe('eth_getBalance', () => {
    const balanceOf = (address: string, ref: unknown) => resultOf(call, 'eth_getBalance', [address, ref]);

    it('gives the balance after any block, named by number, hash or EIP-1898 object', async () => {
      for (const [block, ownerBalance, recipientBalance] of [
        [deployed, ownerAfterDeploy, 0n],
        [moved, ownerAfterMove, value],
      ]) {
        for (const ref of refsTo(block)) {
          expect(await balanceOf(owner.address, ref), JSON.stringify(ref)).to.equal(quantity(ownerBalance));
          expect(await balanceOf(recipient, ref), JSON.stringify(ref)).to.equal(quantity(recipientBalance));
        }
      }
    });

    it('reads latest, safe, finalized and pending as the last block, earliest as genesis, and an omitted block as latest', async () => {
      for (const tag of LATEST_TAGS) expect(await balanceOf(recipient, tag), tag).to.equal(quantity(value));
      expect(await resultOf(call, 'eth_getBalance', [recipient])).to.equal(quantity(value));
      expect(await balanceOf(owner.address, 'earliest')).to.equal(quantity(DEV_BALANCE));
      expect(await balanceOf(owner.address, '0x0')).to.equal(quantity(DEV_BALANCE));
    });
  });

  describe('eth_getCode', () => {
    const codeOf = (address: string, ref: unknown) => resultOf(call, 'eth_getCode', [address, ref]);

    it('gives the code after any block: none before the deployment, none for an account without code', async () => {
      for (const ref of refsTo(moved)) expect(await codeOf(answer, ref), JSON.stringify(ref)).to.equal(ANSWER_RUNTIME);
      for (const tag of LATEST_TAGS) expect(await codeOf(answer, tag), tag).to.equal(ANSWER_RUNTIME);
      expect(await codeOf(answer, deployed.number)).to.equal('0x');
      expect(await codeOf(owner.address, 'latest')).to.equal('0x');
      expect(await codeOf(recipient, 'latest')).to.equal('0x');
      expect(await codeOf(token, 'earliest')).to.equal('0x');
      const tokenCode = await codeOf(token, deployed.number);
      expect(tokenCode.length).to.be.greaterThan(2);
      expect(await codeOf(token, 'latest')).to.equal(tokenCode);
    });
  });

  describe('eth_getStorageAt', () => {
    const storageAt = (address: string, key: string, ref: unknown = 'latest') =>
      resultOf(call, 'eth_getStorageAt', [address, key, ref]);

    it('reads a key of up to 32 bytes, with or without 0x, an odd digit count padded', async () => {
      for (const key of ['0x2', '0X2', '2', '0x02', '0x002', '02', `0x${'00'.repeat(31)}02`]) {
        expect(await storageAt(token, key), key).to.equal(word(supply));
      }
      // "Test" is a short string: its bytes, then twice its length, in one word.
      const name = `0x${Buffer.from('Test').toString('hex').padEnd(62, '0')}08`;
      for (const key of ['0x0', '0x', '']) expect(await storageAt(token, key), JSON.stringify(key)).to.equal(name);
      expect(await storageAt(token, '0x7')).to.equal(ZERO_WORD);
      expect(await storageAt(recipient, '0x2')).to.equal(ZERO_WORD);
    });

    it('gives the value after any block', async () => {
      const slot = balanceSlot(recipient);
      for (const ref of refsTo(deployed))
        expect(await storageAt(token, slot, ref), JSON.stringify(ref)).to.equal(ZERO_WORD);
      for (const ref of refsTo(moved))
        expect(await storageAt(token, slot, ref), JSON.stringify(ref)).to.equal(word(sent));
      expect(await storageAt(token, balanceSlot(owner.address), deployed.number)).to.equal(word(supply));
      expect(await storageAt(token, balanceSlot(owner.address), 'pending')).to.equal(word(supply - sent));
      expect(await storageAt(token, '0x2', 'earliest')).to.equal(ZERO_WORD);
    });

    it('refuses a key longer than 32 bytes or not hex, once the block is resolved (-32000, as geth)', async () => {
      for (const key of [`0x${'11'.repeat(33)}`, `0x00${'11'.repeat(32)}`, '1'.repeat(65)]) {
        expect(await errorOf(call, 'eth_getStorageAt', [token, key, 'latest']), key).to.deep.equal({
          code: -32000,
          message: 'unable to decode storage key: hex string too long, want at most 32 bytes',
        });
      }
      for (const key of ['0xzz', '0x1g', ' 0x1']) {
        expect(await errorOf(call, 'eth_getStorageAt', [token, key, 'latest']), key).to.deep.equal({
          code: -32000,
          message: 'unable to decode storage key: hex string invalid',
        });
      }
      const head = Number(moved.number);
      expect(await errorOf(call, 'eth_getStorageAt', [token, '0xzz', quantity(head + 1)])).to.deep.equal({
        code: -32000,
        message: `requested height ${head + 1} is not yet available; safe latest is ${head}`,
      });
      expect(await errorOf(call, 'eth_getStorageAt', [token, `0x${'11'.repeat(33)}`, UNKNOWN_HASH])).to.deep.equal({
        code: -32001,
        message: 'block not found by hash',
      });
    });
  });

  describe('eth_getAccountInfo', () => {
    const infoOf = (address: string, ref: unknown) => resultOf(call, 'eth_getAccountInfo', [address, ref]);

    it('gives balance, nonce and code together after any block', async () => {
      for (const ref of refsTo(deployed)) {
        expect(await infoOf(owner.address, ref), JSON.stringify(ref)).to.deep.equal({
          balance: quantity(ownerAfterDeploy),
          nonce: '0x1',
          code: '0x',
        });
        expect(await infoOf(answer, ref)).to.deep.equal({ balance: '0x0', nonce: '0x0', code: '0x' });
      }
      for (const tag of [...LATEST_TAGS, moved.hash, { blockNumber: moved.number }]) {
        expect(await infoOf(owner.address, tag), JSON.stringify(tag)).to.deep.equal({
          balance: quantity(ownerAfterMove),
          nonce: '0x4',
          code: '0x',
        });
        // A created contract starts at nonce 1 (EIP-161).
        expect(await infoOf(answer, tag)).to.deep.equal({ balance: '0x0', nonce: '0x1', code: ANSWER_RUNTIME });
        expect(await infoOf(recipient, tag)).to.deep.equal({ balance: quantity(value), nonce: '0x0', code: '0x' });
      }
      expect(await resultOf(call, 'eth_getAccountInfo', [recipient])).to.deep.equal(await infoOf(recipient, 'latest'));
      expect(await infoOf(owner.address, 'earliest')).to.deep.equal({
        balance: quantity(DEV_BALANCE),
        nonce: '0x0',
        code: '0x',
      });
    });
  });

  describe('blocks that cannot be read', () => {
    const requests = (ref: unknown): [string, unknown[]][] => [
      ['eth_getBalance', [recipient, ref]],
      ['eth_getCode', [answer, ref]],
      ['eth_getStorageAt', [token, '0x2', ref]],
      ['eth_getAccountInfo', [recipient, ref]],
    ];

    it('refuses a height above the head with -32000, naming the head', async () => {
      const head = Number(moved.number);
      for (const ref of [quantity(head + 1), { blockNumber: quantity(head + 1) }, '0x7fffffffffffffff']) {
        const height = BigInt((ref as { blockNumber?: string }).blockNumber ?? (ref as string));
        for (const [method, params] of requests(ref)) {
          expect(await errorOf(call, method, params), `${method} ${JSON.stringify(ref)}`).to.deep.equal({
            code: -32000,
            message: `requested height ${height} is not yet available; safe latest is ${head}`,
          });
        }
      }
    });

    it('refuses an unknown block hash with -32001 block not found by hash', async () => {
      for (const ref of [
        UNKNOWN_HASH,
        { blockHash: UNKNOWN_HASH },
        { blockHash: UNKNOWN_HASH, requireCanonical: true },
      ]) {
        for (const [method, params] of requests(ref)) {
          expect(await errorOf(call, method, params), `${method} ${JSON.stringify(ref)}`).to.deep.equal({
            code: -32001,
            message: 'block not found by hash',
          });
        }
      }
    });

    it('refuses an EIP-1898 object naming neither a number nor a hash with -32000, as geth', async () => {
      for (const [method, params] of requests({})) {
        expect(await errorOf(call, method, params), method).to.deep.equal({
          code: -32000,
          message: 'invalid arguments; neither block nor hash specified',
        });
      }
    });
  });

  it('serves the same answers over WebSocket', async () => {
    const client = await WsClient.connect(node.wsUrl);
    const ws = overWs(client);
    expect(await resultOf(ws, 'eth_getBalance', [recipient, moved.hash])).to.equal(quantity(value));
    expect(await resultOf(ws, 'eth_getCode', [answer, 'latest'])).to.equal(ANSWER_RUNTIME);
    expect(await resultOf(ws, 'eth_getStorageAt', [token, '2', { blockNumber: deployed.number }])).to.equal(
      word(supply),
    );
    expect(await resultOf(ws, 'eth_getAccountInfo', [answer, 'latest'])).to.deep.equal({
      balance: '0x0',
      nonce: '0x1',
      code: ANSWER_RUNTIME,
    });
    expect(await errorOf(ws, 'eth_getBalance', [recipient, UNKNOWN_HASH])).to.deep.equal({
      code: -32001,
      message: 'block not found by hash',
    });
    client.close();
  });
});

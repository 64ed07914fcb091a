import { expect } from 'chai';
import {
  AbiCoder,
  ContractFactory,
  Interface,
  getAddress,
  getCreateAddress,
  keccak256,
  toBeHex,
  zeroPadValue,
  type HDNodeWallet,
} from 'ethers';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { testToken } from '@evmnode/tools/contracts/test-token';
import {
  BLOCK_GAS_LIMIT,
  FEE_COLLECTOR,
  GWEI,
  devWallet,
  lower,
  quantity,
  sign,
  submit,
  waitForReceipt,
  type TxFields,
} from '../support/chain-kit.js';
import { expectValidResult } from '../support/openrpc.js';
import { loopGaps } from '../support/load-checks.js';
import { post, rpc, rpcFrom } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';

const probe = compileContract('SimulationProbe');
const abi = new Interface(probe.abi);
const coder = AbiCoder.defaultAbiCoder();

/** A gas price above any base fee these tests reach. */
const PRICE = 10n * GWEI;
/** `simulation_gas_limit`'s default. */
const GAS_CAP = 10_000_000n;
const SLOT_STORED = zeroPadValue('0x00', 32);
const SLOT_OTHER = zeroPadValue('0x01', 32);
/** An address that holds nothing. */
const NOBODY = '0x00000000000000000000000000000000000000ee';
const ZERO_ADDRESS = `0x${'00'.repeat(20)}`;
/** Words of memory whose expansion costs about 10.6M gas: more than the cap, less than the block gas limit. */
const WORDS_ABOVE_CAP = 73_000;
/** Words of memory whose expansion costs about 19.8M gas: more than the block gas limit. */
const WORDS_ABOVE_BLOCK = 100_000;
/** The longest a public node may hold its event loop for one piece of work. */
const LONGEST_TURN_MS = 50;

const word = (value: bigint | number): string => zeroPadValue(toBeHex(value), 32);
const errorData = (reason: string): string => `0x08c379a0${coder.encode(['string'], [reason]).slice(2)}`;
const panicData = (code: number): string => `0x4e487b71${coder.encode(['uint256'], [code]).slice(2)}`;
const input = (name: string, args: readonly unknown[] = []): string => abi.encodeFunctionData(name, args);
const decoded = (name: string, data: string): unknown[] => [...abi.decodeFunctionResult(name, data)];

/** Deploys SimulationProbe with its two storage values; returns its address. */
async function deployProbe(url: string, deployer: HDNodeWallet, nonce: number, stored: number, other: number) {
  const raw = await sign(deployer, {
    nonce,
    data: probe.bytecode + coder.encode(['uint256', 'uint256'], [stored, other]).slice(2),
    gasLimit: 1_000_000n,
  });
  const receipt = await waitForReceipt(url, await submit(url, raw));
  expect(receipt.status).to.equal('0x1');
  return receipt.contractAddress as string;
}

/** Sends a transaction that is mined; returns its receipt. */
async function mined(url: string, wallet: HDNodeWallet, fields: TxFields): Promise<any> {
  return waitForReceipt(url, await submit(url, await sign(wallet, fields)));
}

describe('simulation: eth_call, eth_estimateGas, eth_estimateGasAfterCalls, eth_createAccessList', () => {
  const deployer = devWallet(3);
  const sender = devWallet(4);
  let node: TestNode;
  let target: string;
  let neighbour: string;
  /** The last height at which the target's `stored` was still 5. */
  let beforeUpdate: number;
  let senderNonce = 0;

  const call = (params: unknown[]) => rpc(node.url, 'eth_call', params);
  const estimate = (params: unknown[]) => rpc(node.url, 'eth_estimateGas', params);
  const result = async (method: string, params: unknown[], schemaMethod = method): Promise<any> => {
    const answer = await rpc(node.url, method, params);
    expect(answer.error, `${method}: ${JSON.stringify(answer.error)}`).to.equal(undefined);
    expectValidResult(schemaMethod, answer.result);
    return answer.result;
  };
  const callResult = (name: string, args: readonly unknown[] = [], fields: object = {}, ...rest: unknown[]) =>
    result('eth_call', [{ to: target, input: input(name, args), ...fields }, ...rest]).then((data: string) =>
      decoded(name, data),
    );

  before(async () => {
    node = await startTestNode();
    target = await deployProbe(node.url, deployer, 0, 5, 6);
    neighbour = await deployProbe(node.url, deployer, 1, 77, 0);
    const update = await mined(node.url, deployer, {
      nonce: 2,
      to: target,
      data: input('setStored', [9]),
      gasLimit: 100_000n,
    });
    expect(update.status).to.equal('0x1');
    beforeUpdate = Number(update.blockNumber) - 1;
  });
  after(() => node.stop());

  describe('eth_call', () => {
    it('returns the return data at latest by default, and at a past height the state of that height', async () => {
      expect(await callResult('both')).to.deep.equal([9n, 6n]);
      expect(await callResult('both', [], {}, 'latest')).to.deep.equal([9n, 6n]);
      expect(await callResult('both', [], {}, quantity(beforeUpdate))).to.deep.equal([5n, 6n]);
      const block = (await rpc(node.url, 'eth_getBlockByNumber', [quantity(beforeUpdate), false])).result;
      expect(await callResult('both', [], {}, { blockHash: block.hash })).to.deep.equal([5n, 6n]);
      // Before the deployment there is no code: the call returns nothing.
      expect(await result('eth_call', [{ to: target, input: input('both') }, '0x0'])).to.equal('0x');
    });

    it('takes the transaction type from the fields, not from "type", as geth', async () => {
      // ethers sends a type; geth's TransactionArgs has none, and a type no call can be is no error.
      for (const type of ['0x0', '0x3', '0x4', '0x7f', '0x7fffffffffffffff', 'not a quantity'])
        expect(await callResult('both', [], { type })).to.deep.equal([9n, 6n]);
    });

    it('refuses a gas price at which the gas passes 2^256-1 as geth does: no balance pays it', async () => {
      const huge = `0x${'f'.repeat(64)}`;
      const gas = 10_000_000n;
      const want = gas * BigInt(huge);
      const unpaid = `insufficient funds for gas * price + value: address ${ZERO_ADDRESS} have 0 want ${want}`;
      // A call to code, and a deployment: the two ways a call runs.
      const calls = [{ to: target, input: input('both') }, { input: '0x6000' }];
      for (const call of calls) {
        for (const fees of [{ gasPrice: huge }, { maxFeePerGas: huge }]) {
          const answer = await rpc(node.url, 'eth_call', [{ ...call, ...fees }, 'latest']);
          expect(answer.error, JSON.stringify(call)).to.deep.equal({
            code: -32000,
            message: `err: ${unpaid} (supplied gas ${gas})`,
          });
        }
      }
    });

    it("refuses init code past EIP-3860's 49,152 bytes before it runs, in geth's words", async () => {
      // Zero bytes are STOPs: the largest init code allowed runs and returns nothing.
      const deployment = (bytes: number) => ({ input: `0x${'00'.repeat(bytes)}` });
      expect(await result('eth_call', [deployment(49_152), 'latest'])).to.equal('0x');
      const tooLarge = 'max initcode size exceeded: code size 49153 limit 49152';
      expect((await rpc(node.url, 'eth_call', [deployment(49_153), 'latest'])).error).to.deep.equal({
        code: -32000,
        message: `err: ${tooLarge} (supplied gas ${GAS_CAP})`,
      });
      expect((await estimate([deployment(49_153)])).error).to.deep.equal({
        code: -32000,
        message: `failed with ${GAS_CAP} gas: ${tooLarge}`,
      });
      // A call to an address carries data of any size.
      expect(await result('eth_call', [{ ...deployment(49_153), to: NOBODY }, 'latest'])).to.equal('0x');
    });

    it('answers calls of long data each by its own data, the first time and when remembered', async () => {
      // The identity precompile returns its input. Answers are remembered per block by the data's digest past 256 bytes.
      const identity = '0x0000000000000000000000000000000000000004';
      const datas = [`0x${'ab'.repeat(300)}01`, `0x${'ab'.repeat(300)}02`, `0x${'00'.repeat(512 * 1024)}`];
      for (let round = 0; round < 2; round++) {
        for (const data of datas)
          expect(await result('eth_call', [{ to: identity, input: data }, 'latest'])).to.equal(data);
      }
    });

    it('answers a revert with a reason with code 3, the reason in the message and the revert data', async () => {
      expect((await call([{ to: target, input: input('failWithReason') }])).error).to.deep.equal({
        code: 3,
        message: 'execution reverted: probe: not allowed',
        data: errorData('probe: not allowed'),
      });
    });

    it('answers a revert without data with -32000 execution reverted and no data', async () => {
      expect((await call([{ to: target, input: input('failWithoutData') }])).error).to.deep.equal({
        code: -32000,
        message: 'execution reverted',
      });
    });

    it('answers a custom error with code 3 and its data, and no reason', async () => {
      const from = lower(sender.address);
      expect((await call([{ from, to: target, input: input('failWithCustomError') }])).error).to.deep.equal({
        code: 3,
        message: 'execution reverted',
        data: abi.encodeErrorResult('Unauthorized', [from, 42]),
      });
    });

    it('words panics as geth does', async () => {
      expect((await call([{ to: target, input: input('failAssert', [1]) }])).error).to.deep.equal({
        code: 3,
        message: 'execution reverted: assert(false)',
        data: panicData(0x01),
      });
      expect((await call([{ to: target, input: input('divide', [1, 0]) }])).error).to.deep.equal({
        code: 3,
        message: 'execution reverted: division or modulo by zero',
        data: panicData(0x12),
      });
      expect(await callResult('divide', [84, 2])).to.deep.equal([42n]);
    });

    it('runs with the gas cap when no gas is given, and caps larger gas', async () => {
      const outOfGas = { code: -32000, message: 'out of gas' };
      const touch = input('touchMemory', [WORDS_ABOVE_CAP]);
      expect((await call([{ to: target, input: touch }])).error).to.deep.equal(outOfGas);
      expect((await call([{ to: target, input: touch, gas: quantity(BLOCK_GAS_LIMIT) }])).error).to.deep.equal(
        outOfGas,
      );
      expect(await callResult('touchMemory', [1000])).to.deep.equal([1n]);
    });

    it('calls from the zero address by default, with msg.sender and tx.origin both the sender', async () => {
      expect(await callResult('callerAndOrigin')).to.deep.equal([ZERO_ADDRESS, ZERO_ADDRESS]);
      const from = getAddress(sender.address);
      expect(await callResult('callerAndOrigin', [], { from })).to.deep.equal([from, from]);
    });

    it('calls from an address with code, as geth does (no EIP-3607 check in simulation)', async () => {
      const from = getAddress(neighbour);
      expect(await callResult('callerAndOrigin', [], { from })).to.deep.equal([from, from]);
    });

    it('sees a zero base fee and charges nothing when the call names no gas price', async () => {
      const [, , , baseFee] = await callResult('context', [], { from: NOBODY });
      expect(baseFee).to.equal(0n);
    });

    it("checks the sender's funds when a gas price is given, in geth's words", async () => {
      const fields = {
        from: NOBODY,
        to: target,
        input: input('stored'),
        gas: quantity(100_000),
        gasPrice: quantity(PRICE),
      };
      const want = 100_000n * PRICE;
      expect((await call([fields])).error).to.deep.equal({
        code: -32000,
        message: `err: insufficient funds for gas * price + value: address ${getAddress(NOBODY)} have 0 want ${want} (supplied gas 100000)`,
      });
      const short = await call([fields, 'latest', { [NOBODY]: { balance: quantity(want - 1n) } }]);
      expect(short.error.message).to.equal(
        `err: insufficient funds for gas * price + value: address ${getAddress(NOBODY)} have ${want - 1n} want ${want} (supplied gas 100000)`,
      );
      expect(await result('eth_call', [fields, 'latest', { [NOBODY]: { balance: quantity(want) } }])).to.equal(word(9));
    });

    it('refuses a gas limit below the intrinsic gas or the calldata floor, in geth words', async () => {
      expect((await call([{ to: NOBODY, gas: quantity(20_000) }])).error).to.deep.equal({
        code: -32000,
        message: 'err: intrinsic gas too low: have 20000, want 21000 (supplied gas 20000)',
      });
      // Four bytes of calldata cost 21064 as intrinsic gas, but EIP-7623's floor asks 21160.
      expect((await call([{ to: target, input: input('both'), gas: quantity(21_100) }])).error).to.deep.equal({
        code: -32000,
        message: 'err: insufficient gas for floor data gas cost: have 21100, want 21160 (supplied gas 21100)',
      });
      // A creation of 2,000 non-zero bytes: 53,000 + 32,000 + 126 (init code words) against a floor of 101,000.
      expect((await call([{ input: `0x${'ab'.repeat(2000)}`, gas: quantity(90_000) }])).error).to.deep.equal({
        code: -32000,
        message: 'err: insufficient gas for floor data gas cost: have 90000, want 101000 (supplied gas 90000)',
      });
    });

    it('takes "input" and "data" together only when they are equal (decisions.md D9)', async () => {
      const data = input('stored');
      expect(await result('eth_call', [{ to: target, input: data, data }])).to.equal(word(9));
      expect(await result('eth_call', [{ to: target, data }])).to.equal(word(9));
      const mismatch = {
        code: -32000,
        message: 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
      };
      expect((await call([{ to: target, input: data, data: input('other') }])).error).to.deep.equal(mismatch);
      expect((await estimate([{ to: target, input: data, data: input('other') }])).error).to.deep.equal(mismatch);
    });

    it('refuses a gas price together with fee-market fields, in geth words', async () => {
      const both = { code: -32000, message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified' };
      const request = { to: target, input: input('stored'), gasPrice: '0x3b9aca00', maxFeePerGas: '0x3b9aca00' };
      expect((await call([request])).error).to.deep.equal(both);
      expect(
        (await estimate([{ ...request, maxFeePerGas: undefined, maxPriorityFeePerGas: '0x1' }])).error,
      ).to.deep.equal(both);
    });
  });

  describe('eth_call state overrides', () => {
    it('replaces a balance', async () => {
      expect(await callResult('balanceAt', [NOBODY])).to.deep.equal([0n]);
      const overrides = { [NOBODY]: { balance: '0x3039' } };
      expect(await callResult('balanceAt', [NOBODY], {}, 'latest', overrides)).to.deep.equal([12345n]);
    });

    it('replaces a nonce (the address a contract creates follows it)', async () => {
      const create = { to: target, input: input('create') };
      // A contract's nonce starts at 1 (EIP-161).
      expect(decoded('create', await result('eth_call', [create]))).to.deep.equal([
        getCreateAddress({ from: target, nonce: 1 }),
      ]);
      const overrides = { [target]: { nonce: '0x7' } };
      expect(decoded('create', await result('eth_call', [create, 'latest', overrides]))).to.deep.equal([
        getCreateAddress({ from: target, nonce: 7 }),
      ]);
    });

    it('replaces code', async () => {
      // PUSH1 0x2a PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns 42.
      const overrides = { [NOBODY]: { code: '0x602a60005260206000f3' } };
      expect(await result('eth_call', [{ to: NOBODY }, 'latest', overrides])).to.equal(word(42));
      const asProbe = { [NOBODY]: { code: probe.deployedBytecode, stateDiff: { [SLOT_STORED]: word(3) } } };
      expect(await callResult('both', [], { to: NOBODY }, 'latest', asProbe)).to.deep.equal([3n, 0n]);
    });

    it('replaces the whole storage with "state" and single slots with "stateDiff"', async () => {
      const state = { [target]: { state: { [SLOT_STORED]: word(42) } } };
      expect(await callResult('both', [], {}, 'latest', state)).to.deep.equal([42n, 0n]);
      const stateDiff = { [target]: { stateDiff: { [SLOT_STORED]: word(42) } } };
      expect(await callResult('both', [], {}, 'latest', stateDiff)).to.deep.equal([42n, 6n]);
      const atPast = { [target]: { stateDiff: { [SLOT_OTHER]: word(1) } } };
      expect(await callResult('both', [], {}, quantity(beforeUpdate), atPast)).to.deep.equal([5n, 1n]);
    });

    it('refuses "state" and "stateDiff" together for one account, in geth words', async () => {
      const overrides = { [target]: { state: {}, stateDiff: {} } };
      expect((await call([{ to: target, input: input('both') }, 'latest', overrides])).error).to.deep.equal({
        code: -32000,
        message: `account ${getAddress(target)} has both 'state' and 'stateDiff'`,
      });
    });

    it("decodes 16,000 accounts' overrides in turns, never holding the thread 50 ms, and applies every one", async () => {
      const ACCOUNTS = 16_000;
      const accountAt = (index: number) => `0x${(0x10000 + index).toString(16).padStart(40, '0')}`;
      const overrides: Record<string, object> = {};
      for (let index = 0; index < ACCOUNTS; index++) overrides[accountAt(index)] = { balance: quantity(index + 1) };
      const last = accountAt(ACCOUNTS - 1);
      const body = (accounts: object) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_call',
          params: [{ to: target, input: input('balanceAt', [last]) }, 'latest', accounts],
        });
      // Made before the gaps are timed: the client's own work runs in this process too.
      const valid = body(overrides);
      const invalid = body({ ...overrides, [last]: { balance: '0x01' } });
      const gaps = loopGaps();
      const answer = JSON.parse((await post(node.url, valid)).text);
      const refusal = JSON.parse((await post(node.url, invalid)).text);
      expect(gaps.stop()).to.be.below(LONGEST_TURN_MS);
      expect(decoded('balanceAt', answer.result)).to.deep.equal([BigInt(ACCOUNTS)]);
      expect(refusal.error).to.deep.equal({
        code: -32602,
        message:
          'invalid argument 2: json: cannot unmarshal hex number with leading zero digits into Go struct field OverrideAccount.balance of type *hexutil.Big',
      });
    });

    it('keeps nothing of an override', async () => {
      await callResult('both', [], {}, 'latest', { [target]: { state: {} } });
      expect(await callResult('both')).to.deep.equal([9n, 6n]);
    });
  });

  describe('eth_call block overrides', () => {
    it("runs in the state's own block: its number, time, gas limit and randomness, the fee collector as coinbase", async () => {
      const height = (await rpc(node.url, 'eth_blockNumber')).result as string;
      const block = (await rpc(node.url, 'eth_getBlockByNumber', [height, false])).result;
      expect(await callResult('context', [], {}, height)).to.deep.equal([
        BigInt(height),
        BigInt(block.timestamp),
        getAddress(FEE_COLLECTOR),
        0n,
        BLOCK_GAS_LIMIT,
        // The block's JSON shows mixHash as a placeholder (interface.md §2.12); PREVRANDAO reads our value.
        BigInt((await node.node.chain.store.blockAt(Number(height)))!.prevRandao),
      ]);
      // With a gas price the call sees the block's base fee.
      const [, , , baseFee] = await callResult(
        'context',
        [],
        { from: sender.address, gasPrice: quantity(100n * GWEI) },
        height,
      );
      expect(baseFee).to.equal(BigInt(block.baseFeePerGas));
    });

    it('overrides number, time, fee recipient, gas limit, randomness and base fee (geth names and older ones)', async () => {
      const coinbase = getAddress('0x00000000000000000000000000000000000000c0');
      const randao = word(0xabcdef);
      const fields = { from: sender.address, gasPrice: quantity(7n * GWEI) };
      const expected = [123_456n, 1_700_000_000n, coinbase, 7n * GWEI, 30_000_000n, 0xabcdefn];
      const current = {
        number: quantity(123_456),
        time: quantity(1_700_000_000),
        feeRecipient: coinbase,
        gasLimit: quantity(30_000_000),
        prevRandao: randao,
        baseFeePerGas: quantity(7n * GWEI),
      };
      expect(await callResult('context', [], fields, 'latest', {}, current)).to.deep.equal(expected);
      const older = { ...current, feeRecipient: undefined, prevRandao: undefined, baseFeePerGas: undefined };
      Object.assign(older, { coinbase, random: randao, baseFee: quantity(7n * GWEI) });
      expect(await callResult('context', [], fields, 'latest', null, older)).to.deep.equal(expected);
    });

    it('refuses a gas price below an overridden base fee, in geth words', async () => {
      const fields = {
        from: sender.address,
        to: target,
        input: input('stored'),
        gas: quantity(50_000),
        gasPrice: quantity(6n * GWEI),
      };
      const answer = await call([fields, 'latest', {}, { baseFeePerGas: quantity(7n * GWEI) }]);
      expect(answer.error).to.deep.equal({
        code: -32000,
        message: `err: max fee per gas less than block base fee: address ${getAddress(sender.address)}, maxFeePerGas: ${6n * GWEI}, baseFee: ${7n * GWEI} (supplied gas 50000)`,
      });
    });
  });

  describe('eth_estimateGas', () => {
    it('estimates a plain transfer at 21000', async () => {
      expect(await result('eth_estimateGas', [{ from: sender.address, to: NOBODY, value: '0x1' }])).to.equal('0x5208');
      expect(await result('eth_estimateGas', [{ to: NOBODY }])).to.equal('0x5208');
    });

    it('estimates enough for a transaction whose refunds make it use less than it needs', async () => {
      const churn = input('churn', [30]);
      const estimated = BigInt(await result('eth_estimateGas', [{ from: sender.address, to: target, input: churn }]));
      const fields = { to: target, data: churn };
      const exact = await mined(node.url, sender, { ...fields, nonce: senderNonce++, gasLimit: estimated });
      expect(exact.status).to.equal('0x1');
      const used = BigInt(exact.gasUsed);
      // Geth's search stops within 1.5% of the least gas that succeeds; the refund (a fifth of the
      // gas spent at most) is far more than that.
      expect(Number(estimated - used) / Number(estimated)).to.be.within(0.15, 0.3);
      const short = await mined(node.url, sender, { ...fields, nonce: senderNonce++, gasLimit: used });
      expect(short.status).to.equal('0x0');
    });

    it('estimates enough for a nested call, which gets 63/64 of the gas left', async () => {
      const nested = input('churnThroughCall', [30]);
      const estimated = BigInt(await result('eth_estimateGas', [{ from: sender.address, to: target, input: nested }]));
      const receipt = await mined(node.url, sender, {
        to: target,
        data: nested,
        nonce: senderNonce++,
        gasLimit: estimated,
      });
      expect(receipt.status).to.equal('0x1');
    });

    it('is capped by simulation_gas_limit, by the gas given, and by what the gas price lets the sender pay', async () => {
      const touch = { to: target, input: input('touchMemory', [WORDS_ABOVE_CAP]) };
      const exceeds = (allowance: bigint) => ({
        code: -32000,
        message: `gas required exceeds allowance (${allowance})`,
      });
      expect((await estimate([touch])).error).to.deep.equal(exceeds(GAS_CAP));
      expect((await estimate([{ ...touch, gas: quantity(50_000) }])).error).to.deep.equal(exceeds(50_000n));
      const paying = { ...touch, from: NOBODY, gasPrice: quantity(PRICE) };
      const funds = { [NOBODY]: { balance: quantity(500_000n * PRICE + 5n) } };
      expect((await estimate([paying, 'latest', funds])).error).to.deep.equal(exceeds(500_000n));
    });

    it('refuses a value the sender cannot pay when a gas price is given', async () => {
      const transfer = { from: NOBODY, to: sender.address, value: quantity(100), gasPrice: quantity(PRICE) };
      const insufficient = { code: -32000, message: 'insufficient funds for transfer' };
      expect((await estimate([transfer, 'latest', { [NOBODY]: { balance: quantity(100) } }])).error).to.deep.equal(
        insufficient,
      );
      expect((await estimate([transfer, 'latest', { [NOBODY]: { balance: quantity(99) } }])).error).to.deep.equal(
        insufficient,
      );
    });

    it('refuses a gas price below the base fee, in geth words', async () => {
      const height = (await rpc(node.url, 'eth_blockNumber')).result as string;
      const block = (await rpc(node.url, 'eth_getBlockByNumber', [height, false])).result;
      const cheap = { from: sender.address, to: target, input: input('both'), gasPrice: '0x1' };
      expect((await estimate([cheap, height])).error).to.deep.equal({
        code: -32000,
        message: `failed with ${GAS_CAP} gas: max fee per gas less than block base fee: address ${getAddress(sender.address)}, maxFeePerGas: 1, baseFee: ${BigInt(block.baseFeePerGas)}`,
      });
    });

    it('answers a call that always reverts with the revert, as eth_call does', async () => {
      expect((await estimate([{ to: target, input: input('failWithReason') }])).error).to.deep.equal({
        code: 3,
        message: 'execution reverted: probe: not allowed',
        data: errorData('probe: not allowed'),
      });
      expect((await estimate([{ to: target, input: input('failWithoutData') }])).error).to.deep.equal({
        code: -32000,
        message: 'execution reverted',
      });
    });

    it('estimates at the given height and with state overrides', async () => {
      const check = (value: number) => ({ to: target, input: input('requireStored', [value]) });
      expect((await estimate([check(5)])).error).to.deep.equal({
        code: 3,
        message: 'execution reverted: probe: stored differs',
        data: errorData('probe: stored differs'),
      });
      const past = BigInt(await result('eth_estimateGas', [check(5), quantity(beforeUpdate)]));
      const latest = BigInt(await result('eth_estimateGas', [check(9)]));
      expect(past).to.equal(latest);
      const overridden = { [target]: { stateDiff: { [SLOT_STORED]: word(5) } } };
      expect(BigInt(await result('eth_estimateGas', [check(5), 'latest', overridden]))).to.equal(latest);
    });

    it('estimates from an address with code, as geth does', async () => {
      const estimated = await result('eth_estimateGas', [{ from: neighbour, to: target, input: input('both') }]);
      expect(estimated).to.equal(await result('eth_estimateGas', [{ from: NOBODY, to: target, input: input('both') }]));
    });
  });

  describe('eth_estimateGasAfterCalls', () => {
    it('estimates after the given calls, as if their changes were made first', async () => {
      const check = { to: target, input: input('requireStored', [13]) };
      const setter = { from: sender.address, to: target, input: input('setStored', [13]) };
      const after = await result('eth_estimateGasAfterCalls', [check, [setter]], 'eth_estimateGas');
      const overridden = { [target]: { stateDiff: { [SLOT_STORED]: word(13) } } };
      expect(after).to.equal(await result('eth_estimateGas', [check, 'latest', overridden]));
      expect((await rpc(node.url, 'eth_estimateGasAfterCalls', [check, []])).error).to.deep.equal({
        code: 3,
        message: 'execution reverted: probe: stored differs',
        data: errorData('probe: stored differs'),
      });
      // At a past height, and with overrides after which the calls run.
      const past = await result(
        'eth_estimateGasAfterCalls',
        [check, [setter], quantity(beforeUpdate)],
        'eth_estimateGas',
      );
      expect(past).to.equal(after);
      const setterFromNobody = { ...setter, from: NOBODY, gasPrice: quantity(PRICE) };
      const funded = { [NOBODY]: { balance: quantity(GAS_CAP * PRICE) } };
      expect(
        await result('eth_estimateGasAfterCalls', [check, [setterFromNobody], 'latest', funded], 'eth_estimateGas'),
      ).to.equal(after);
    });

    it('gives the calls before the estimate one simulation_gas_limit between them', async () => {
      const check = { to: target, input: input('requireStored', [13]) };
      const setter = { from: sender.address, to: target, input: input('setStored', [13]) };
      // A loop that uses all the gas it is given: JUMPDEST, PUSH1 0, JUMP.
      const burner = { to: NOBODY };
      const burnerCode = { [NOBODY]: { code: '0x5b600056' } };
      const after = await result(
        'eth_estimateGasAfterCalls',
        [check, [setter, burner], 'latest', burnerCode],
        'eth_estimateGas',
      );
      expect(Number(after)).to.be.above(21_000);
      // Once the loop used the cap, the setter that follows has no gas left, and its change is not made.
      expect(
        (await rpc(node.url, 'eth_estimateGasAfterCalls', [check, [burner, setter], 'latest', burnerCode])).error,
      ).to.deep.equal({
        code: 3,
        message: 'execution reverted: probe: stored differs',
        data: errorData('probe: stored differs'),
      });
    });
  });

  describe('eth_createAccessList', () => {
    it('lists what the call reads beyond the sender, the recipient and precompiles, with the gas a transaction would use', async () => {
      const peek = input('peek', [neighbour]);
      const list = await result('eth_createAccessList', [{ from: sender.address, to: target, input: peek }]);
      expect(list).to.deep.equal({
        accessList: [{ address: lower(neighbour), storageKeys: [SLOT_STORED] }],
        gasUsed: list.gasUsed,
      });
      const receipt = await mined(node.url, sender, {
        nonce: senderNonce++,
        to: target,
        data: peek,
        gasLimit: 100_000n,
        accessList: list.accessList,
      });
      expect(receipt.status).to.equal('0x1');
      expect(list.gasUsed).to.equal(receipt.gasUsed);
      // The block defaults to pending, which is the head.
      expect(
        await result('eth_createAccessList', [{ from: sender.address, to: target, input: peek }, 'latest']),
      ).to.deep.equal(list);
    });

    it('puts a VM error in the result, with the gas the failing transaction uses', async () => {
      const fail = input('failWithReason');
      const list = await result('eth_createAccessList', [{ from: sender.address, to: target, input: fail }]);
      const receipt = await mined(node.url, sender, {
        nonce: senderNonce++,
        to: target,
        data: fail,
        gasLimit: 100_000n,
      });
      expect(receipt.status).to.equal('0x0');
      expect(list).to.deep.equal({ accessList: [], error: 'execution reverted', gasUsed: receipt.gasUsed });
    });

    it('serves a sender with code, as geth does, listing the sender only with the slots the call reads', async () => {
      const peek = input('peek', [neighbour]);
      const list = await result('eth_createAccessList', [{ from: neighbour, to: target, input: peek }]);
      expect(list).to.deep.equal({
        accessList: [{ address: lower(neighbour), storageKeys: [SLOT_STORED] }],
        gasUsed: list.gasUsed,
      });
      expect(Number(list.gasUsed)).to.be.greaterThan(21_000);
    });

    it('lists the recipient with the slots it reads and writes: an ERC20 transfer names both balances, sorted', async () => {
      const { abi: tokenAbi, bytecode } = testToken();
      const { data } = await new ContractFactory(tokenAbi, bytecode).getDeployTransaction('Test', 'TST', 1000n);
      const deployment = await mined(node.url, sender, { nonce: senderNonce++, data, gasLimit: 2_000_000n });
      const token = deployment.contractAddress as string;
      const transfer = new Interface(tokenAbi).encodeFunctionData('transfer', [NOBODY, 10n]);
      const list = await result('eth_createAccessList', [{ from: sender.address, to: token, input: transfer }]);
      // TestToken's `balanceOf` mapping is slot 3: the recipient's balance sorts before the
      // sender's, which the transfer reads first.
      const balanceSlot = (owner: string) => keccak256(coder.encode(['address', 'uint256'], [owner, 3]));
      const recipientBalance = '0x559614b4d580ed63d8a55cd6b8faddba8339f014c3d1f205f17c8d91908d9837';
      const senderBalance = '0xddfe746303372e8d2ea45aa78e3e91478f7307894b155f7ff4ebb7ddaa345272';
      expect([balanceSlot(NOBODY), balanceSlot(sender.address)]).to.deep.equal([recipientBalance, senderBalance]);
      expect(list).to.deep.equal({
        accessList: [{ address: token, storageKeys: [recipientBalance, senderBalance] }],
        gasUsed: list.gasUsed,
      });
      const receipt = await mined(node.url, sender, {
        nonce: senderNonce++,
        to: token,
        data: transfer,
        gasLimit: 100_000n,
        accessList: list.accessList,
      });
      expect(receipt.status).to.equal('0x1');
      expect(list.gasUsed).to.equal(receipt.gasUsed);
    });
  });
});

/** A node whose simulations stop after 1 s under a gas cap a spinning call cannot reach, with a probe on it. */
async function startLimitedNode(evm: Record<string, unknown>): Promise<{ node: TestNode; target: string }> {
  const node = await startTestNode({
    config: { evm: { simulation_evm_timeout: '1s', simulation_gas_limit: 1_000_000_000, ...evm } },
  });
  return { node, target: await deployProbe(node.url, devWallet(5), 0, 1, 2) };
}

describe('simulation limits: simulation_evm_timeout, max_concurrent_simulation_calls, the block gas limit', () => {
  let node: TestNode;
  let target: string;
  const spin = () => ({ to: target, input: input('spin') });
  const timedOut = { code: -32000, message: 'execution aborted (timeout = 1s)' };
  const busy = (method: string) => ({ code: -32005, message: `${method} rejected due to rate limit: server busy` });

  before(async () => {
    ({ node, target } = await startLimitedNode({ max_concurrent_simulation_calls: 1 }));
  });
  after(() => node.stop());

  it('aborts a call that runs past simulation_evm_timeout, in geth words', async () => {
    const started = performance.now();
    expect((await rpc(node.url, 'eth_call', [spin()])).error).to.deep.equal(timedOut);
    expect(performance.now() - started).to.be.within(1000, 2500);
  });

  it('refuses at once, with -32005, the calls beyond max_concurrent_simulation_calls', async () => {
    const started = performance.now();
    const answers = await Promise.all([1, 2, 3].map(() => rpc(node.url, 'eth_call', [spin()])));
    const errors = answers.map((answer) => answer.error);
    expect(errors.filter((error) => error.code === -32000)).to.deep.equal([timedOut]);
    expect(errors.filter((error) => error.code === -32005)).to.deep.equal([busy('eth_call'), busy('eth_call')]);
    expect(performance.now() - started).to.be.below(2500);
  });

  it('refuses the estimates and access lists too while the limit is reached, and serves them after', async () => {
    const running = rpc(node.url, 'eth_call', [spin()]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const both = { to: target, input: input('both') };
    expect((await rpc(node.url, 'eth_estimateGas', [both])).error).to.deep.equal(busy('eth_estimateGas'));
    expect((await rpc(node.url, 'eth_estimateGasAfterCalls', [both, []])).error).to.deep.equal(
      busy('eth_estimateGasAfterCalls'),
    );
    expect((await rpc(node.url, 'eth_createAccessList', [both])).error).to.deep.equal(busy('eth_createAccessList'));
    expect((await rpc(node.url, 'eth_call', [both])).error).to.deep.equal(busy('eth_call'));
    expect((await running).error).to.deep.equal(timedOut);
    expect(decoded('both', (await rpc(node.url, 'eth_call', [both])).result)).to.deep.equal([1n, 2n]);
  });

  it('caps the estimate at the block gas limit when simulation_gas_limit is higher', async () => {
    const exceeds = { code: -32000, message: `gas required exceeds allowance (${BLOCK_GAS_LIMIT})` };
    const above = { to: target, input: input('touchMemory', [WORDS_ABOVE_BLOCK]) };
    expect((await rpc(node.url, 'eth_estimateGas', [above])).error).to.deep.equal(exceeds);
    // What the default cap refuses fits under the block gas limit here, for eth_call too.
    const below = { to: target, input: input('touchMemory', [WORDS_ABOVE_CAP]) };
    const estimated = BigInt((await rpc(node.url, 'eth_estimateGas', [below])).result);
    expect(estimated > GAS_CAP && estimated < BLOCK_GAS_LIMIT).to.equal(true);
    expect((await rpc(node.url, 'eth_call', [{ ...below, gas: quantity(estimated) }])).result).to.equal(word(1));
  });
});

describe('simulation slots: max_client_share', () => {
  let node: TestNode;
  let target: string;
  const spin = () => ({ to: target, input: input('spin') });

  before(async () => {
    ({ node, target } = await startLimitedNode({ max_concurrent_simulation_calls: 4, max_client_share: 0.25 }));
  });
  after(() => node.stop());

  it("refuses a client's call beyond its share of the slots with -32005 while another client is served", async () => {
    const running = rpc(node.url, 'eth_call', [spin()]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const both = { to: target, input: input('both') };
    // One slot of four is this client's share: its next call is refused, although three are free.
    expect((await rpc(node.url, 'eth_call', [both])).error).to.deep.equal({
      code: -32005,
      message: 'eth_call rejected due to rate limit: server busy',
    });
    // Another remote address is another client.
    const other = await rpcFrom('127.0.0.2', node.url, 'eth_call', [both]);
    expect(decoded('both', other.result as string)).to.deep.equal([1n, 2n]);
    expect((await running).error).to.deep.equal({ code: -32000, message: 'execution aborted (timeout = 1s)' });
    // The slot is given back with the answer.
    expect(decoded('both', (await rpc(node.url, 'eth_call', [both])).result)).to.deep.equal([1n, 2n]);
  });
});

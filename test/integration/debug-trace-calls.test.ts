import { expect } from 'chai';
import {
  AbiCoder,
  getBytes,
  getCreate2Address,
  getCreateAddress,
  hexlify,
  Interface,
  keccak256,
  randomBytes,
  type HDNodeWallet,
} from 'ethers';
import { testToken } from '@evmnode/tools/contracts/test-token';
import { pointerAddressOf } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { startAnvil, type AnvilPeer } from '../support/anvil-peer.js';
import {
  devWallet,
  lower,
  quantity,
  receiptOf,
  sign,
  sleep,
  submit,
  waitForReceipt,
  type TxFields,
} from '../support/chain-kit.js';
import { nativeSigner, registerPointer } from '../support/native-kit.js';
import { rpc } from '../support/rpc-client.js';
import { flatCall, placeOf, type Frame } from '../support/flat-calls.js';
import { compileContract } from '../support/solidity.js';

const tracing = compileContract('CallTracing');
const tracingAbi = new Interface(tracing.abi);
const child = new Interface(['constructor() payable', 'function bye(address to)']);
const target = new Interface([
  'function touch(uint256 value) payable returns (uint256)',
  'function read() view returns (uint256)',
  'function fail(string reason)',
  'function burn()',
]);
/** A trace as JSON: a callTracer frame, or another tracer's result. */

const token = testToken();
const tokenAbi = new Interface(token.abi);
const BANK = '0x0000000000000000000000000000000000001001';
const ADDR = '0x0000000000000000000000000000000000001004';
const bank = new Interface(['function balance(address acc, string denom) view returns (uint256 amount)']);
const addr = new Interface(['function getSeiAddr(address addr) view returns (string response)']);
const bankSend = new Interface([
  'function send(address fromAddress, address toAddress, string denom, uint256 amount) returns (bool success)',
]);
const erc20 = new Interface(['function transfer(address to, uint256 value) returns (bool)']);

/** What a transaction pays before it runs: anvil's callTracer leaves it out of the top frame's `gas`. */
function intrinsicGas(fields: Omit<TxFields, 'nonce'>): bigint {
  const data = getBytes(fields.data ?? '0x');
  const calldata = data.reduce((sum, byte) => sum + (byte === 0 ? 4n : 16n), 0n);
  const creation = fields.to === undefined ? 32_000n + 2n * BigInt(Math.ceil(data.length / 32)) : 0n;
  return 21_000n + calldata + creation;
}

describe('debug_trace* with callTracer, flatCallTracer and muxTracer', function () {
  this.timeout(120_000);
  let node: TestNode;
  let anvil: AnvilPeer;
  /** CallTracing, and the CallTarget it made, at the same addresses on both chains. */
  let at: string;
  let targetAt: string;

  before(async () => {
    [node, anvil] = await Promise.all([startTestNode(), startAnvil()]);
    const deployer = devWallet(1);
    await sendToBoth(deployer, { data: tracing.bytecode, gasLimit: 3_000_000n });
    at = lower(getCreateAddress({ from: deployer.address, nonce: 0 }));
    targetAt = lower(getCreateAddress({ from: at, nonce: 1 }));
  });
  after(async () => {
    await Promise.all([node?.stop(), anvil?.stop()]);
  });

  /** Sends the same signed transaction to evmnode and anvil; its hash, once both mined it, alone in its block. */
  async function sendToBoth(wallet: HDNodeWallet, fields: Omit<TxFields, 'nonce'>): Promise<string> {
    const nonces = await Promise.all(
      [node.url, anvil.url].map(
        async (url) => (await rpc(url, 'eth_getTransactionCount', [wallet.address, 'pending'])).result,
      ),
    );
    expect(nonces[0]).to.equal(nonces[1]);
    const raw = await sign(wallet, { ...fields, nonce: Number(nonces[0]) });
    const hashes = await Promise.all(
      [node.url, anvil.url].map(async (url) => {
        const answer = await rpc(url, 'eth_sendRawTransaction', [raw]);
        expect(answer.error, url).to.equal(undefined);
        // anvil's receipts carry fields evmnode's schema has not: poll without checking them against it.
        while ((await rpc(url, 'eth_getTransactionReceipt', [answer.result])).result === null) await sleep(50);
        return answer.result as string;
      }),
    );
    return hashes[0]!;
  }

  async function traced(url: string, hash: string, config: object): Promise<Frame> {
    const answer = await rpc(url, 'debug_traceTransaction', [hash, config]);
    expect(answer.error, JSON.stringify(answer.error)).to.equal(undefined);
    return answer.result;
  }

  /**
   * Sends a transaction to both chains and traces it with callTracer on both: evmnode's trace
   * equals anvil's once anvil's top-level `gas` gets back the intrinsic gas it leaves out.
   */
  async function comparedCallTrace(
    wallet: HDNodeWallet,
    fields: Omit<TxFields, 'nonce'>,
    tracerConfig: object = {},
  ): Promise<{ hash: string; trace: Frame }> {
    const hash = await sendToBoth(wallet, fields);
    const config = { tracer: 'callTracer', tracerConfig };
    const [trace, peer] = await Promise.all([traced(node.url, hash, config), traced(anvil.url, hash, config)]);
    expect(trace).to.deep.equal({ ...peer, gas: quantity(BigInt(peer.gas) + intrinsicGas(fields)) });
    return { hash, trace };
  }

  /** The callTracer frames of a transaction, without gas, input and output. */
  const outline = (frame: Frame): unknown => ({
    type: frame.type,
    from: frame.from,
    to: frame.to,
    value: frame.value,
    error: frame.error,
    calls: frame.calls?.map(outline),
  });

  describe('callTracer', () => {
    it('traces a plain transfer as one CALL frame', async () => {
      const to = lower(hexlify(randomBytes(20)));
      const { hash, trace } = await comparedCallTrace(devWallet(2), { to, value: 1234n });
      expect(trace).to.deep.equal({
        from: lower(devWallet(2).address),
        gas: '0x5208',
        gasUsed: '0x5208',
        to,
        input: '0x',
        value: '0x4d2',
        type: 'CALL',
      });
      expect((await receiptOf(node.url, hash)).gasUsed).to.equal('0x5208');
    });

    it('traces an ERC20 transfer, with its log', async () => {
      const owner = devWallet(3);
      const deploy = tokenAbi.encodeDeploy(['Traced', 'TRC', 1000n]);
      await sendToBoth(owner, { data: token.bytecode + deploy.slice(2), gasLimit: 2_000_000n });
      const tokenAt = lower(getCreateAddress({ from: owner.address, nonce: 0 }));
      const to = lower(hexlify(randomBytes(20)));
      const data = tokenAbi.encodeFunctionData('transfer', [to, 25n]);
      const fields = { to: tokenAt, data, gasLimit: 100_000n };
      const { hash, trace } = await comparedCallTrace(owner, fields, { withLog: true });
      const receipt = await receiptOf(node.url, hash);
      expect(trace).to.deep.equal({
        from: lower(owner.address),
        gas: '0x186a0',
        gasUsed: receipt.gasUsed,
        to: tokenAt,
        input: data,
        output: AbiCoder.defaultAbiCoder().encode(['bool'], [true]),
        logs: [
          {
            address: tokenAt,
            topics: receipt.logs[0].topics,
            data: receipt.logs[0].data,
            index: receipt.logs[0].logIndex,
            position: '0x0',
          },
        ],
        value: '0x0',
        type: 'CALL',
      });
    });

    it('traces CALL, STATICCALL and DELEGATECALL frames and a caught revert', async () => {
      const sender = devWallet(2);
      const fields = { to: at, data: tracingAbi.encodeFunctionData('nested'), value: 5n, gasLimit: 500_000n };
      const { trace } = await comparedCallTrace(sender, fields);
      expect(outline(trace)).to.deep.equal({
        type: 'CALL',
        from: lower(sender.address),
        to: at,
        value: '0x5',
        error: undefined,
        calls: [
          { type: 'CALL', from: at, to: targetAt, value: '0x5', error: undefined, calls: undefined },
          { type: 'STATICCALL', from: at, to: targetAt, value: undefined, error: undefined, calls: undefined },
          // A DELEGATECALL carries the value of the frame it runs in.
          { type: 'DELEGATECALL', from: at, to: targetAt, value: '0x5', error: undefined, calls: undefined },
          { type: 'CALL', from: at, to: targetAt, value: '0x0', error: 'execution reverted', calls: undefined },
        ],
      });
      expect(trace.calls!.map((call: Frame) => call.input)).to.deep.equal([
        target.encodeFunctionData('touch', [7n]),
        target.encodeFunctionData('read'),
        target.encodeFunctionData('touch', [9n]),
        target.encodeFunctionData('fail', ['nope']),
      ]);
      expect(trace.calls![3]!.revertReason).to.equal('nope');
    });

    it('keeps the logs that stayed, at their receipt index and position among the sub-calls', async () => {
      const sender = devWallet(4);
      const data = tracingAbi.encodeFunctionData('nested');
      const hash = await sendToBoth(sender, { to: at, data, value: 5n, gasLimit: 500_000n });
      const trace = await traced(node.url, hash, { tracer: 'callTracer', tracerConfig: { withLog: true } });
      const receipt = await receiptOf(node.url, hash);
      const logOf = (index: number, position: string) => ({
        address: receipt.logs[index].address,
        topics: receipt.logs[index].topics,
        data: receipt.logs[index].data,
        index: receipt.logs[index].logIndex,
        position,
      });
      // Step(1), the target's Seen, Step(2), Seen in the DELEGATECALL, Step(3): the reverted Seen is gone.
      expect(receipt.logs).to.have.length(5);
      expect(trace.logs).to.deep.equal([logOf(0, '0x0'), logOf(2, '0x1'), logOf(4, '0x4')]);
      expect(trace.calls!.map((call: Frame) => call.logs)).to.deep.equal([
        [logOf(1, '0x0')],
        undefined,
        [logOf(3, '0x0')],
        undefined,
      ]);
      // anvil numbers the reverted log too, so Step(3) is its index 5: the frames are compared without logs.
      const peer = await traced(anvil.url, hash, { tracer: 'callTracer', tracerConfig: { withLog: true } });
      expect(peer.logs[2].index).to.equal('0x5');
    });

    it('gives only the top frame with onlyTopCall', async () => {
      const data = tracingAbi.encodeFunctionData('nested');
      const { hash, trace } = await comparedCallTrace(
        devWallet(2),
        { to: at, data, value: 5n, gasLimit: 500_000n },
        { onlyTopCall: true },
      );
      expect(trace.calls).to.equal(undefined);
      // geth never records the sub-calls, so every top-level log comes before none of them (anvil counts them).
      const withLog = await traced(node.url, hash, {
        tracer: 'callTracer',
        tracerConfig: { onlyTopCall: true, withLog: true },
      });
      const receipt = await receiptOf(node.url, hash);
      expect((withLog.logs as Frame[]).map((log: Frame) => [log.index, log.position])).to.deep.equal([
        [receipt.logs[0].logIndex, '0x0'],
        [receipt.logs[2].logIndex, '0x0'],
        [receipt.logs[4].logIndex, '0x0'],
      ]);
      expect({ ...withLog, logs: undefined }).to.deep.equal({ ...trace, logs: undefined });
    });

    it('gives a revert its data and decoded reason', async () => {
      const data = tracingAbi.encodeFunctionData('failWith', ['not today']);
      const { trace } = await comparedCallTrace(devWallet(2), { to: at, data, gasLimit: 100_000n });
      expect(trace.error).to.equal('execution reverted');
      expect(trace.revertReason).to.equal('not today');
      expect(trace.output).to.equal(
        new Interface(['function Error(string)']).encodeFunctionData('Error', ['not today']),
      );
    });

    it('reports out of gas, at the top and in a caught inner frame', async () => {
      const top = await comparedCallTrace(devWallet(2), {
        to: targetAt,
        data: target.encodeFunctionData('burn'),
        gasLimit: 100_000n,
      });
      expect(top.trace).to.deep.include({ gas: '0x186a0', gasUsed: '0x186a0', error: 'out of gas' });
      expect(top.trace).to.not.have.property('output');

      const inner = await comparedCallTrace(devWallet(2), {
        to: at,
        data: tracingAbi.encodeFunctionData('starve'),
        gasLimit: 200_000n,
      });
      expect(inner.trace.error).to.equal(undefined);
      expect(inner.trace.calls).to.deep.equal([
        {
          from: at,
          gas: '0xc350',
          gasUsed: '0xc350',
          to: targetAt,
          input: target.encodeFunctionData('burn'),
          error: 'out of gas',
          value: '0x0',
          type: 'CALL',
        },
      ]);
    });

    it('traces CREATE and CREATE2 with the addresses they made', async () => {
      const salt = hexlify(randomBytes(32));
      const data = tracingAbi.encodeFunctionData('make', [salt]);
      const { trace } = await comparedCallTrace(devWallet(2), { to: at, data, value: 7n, gasLimit: 500_000n });
      const nonce = await rpc(node.url, 'eth_getTransactionCount', [at, 'latest']);
      const made = lower(getCreateAddress({ from: at, nonce: Number(nonce.result) - 2 }));
      const childCode = trace.calls![0]!.input;
      const made2 = lower(getCreate2Address(at, salt, keccak256(childCode)));
      expect(trace.calls!.map((call: Frame) => [call.type, call.to, call.value])).to.deep.equal([
        ['CREATE', made, '0x7'],
        ['CREATE2', made2, '0x0'],
      ]);
      expect(trace.calls![1]!.input).to.equal(childCode);
      expect(trace.calls![0]!.output).to.equal(
        await rpc(node.url, 'eth_getCode', [made, 'latest']).then((a) => a.result),
      );
    });

    it('shows a SELFDESTRUCT as a frame from the contract to its beneficiary', async () => {
      const beneficiary = lower(hexlify(randomBytes(20)));
      const data = tracingAbi.encodeFunctionData('makeAndDestroy', [beneficiary]);
      const { trace } = await comparedCallTrace(devWallet(2), { to: at, data, value: 3n, gasLimit: 500_000n });
      const made = trace.calls![0]!.to;
      expect(trace.calls![1]!).to.deep.include({
        from: at,
        to: made,
        input: child.encodeFunctionData('bye', [beneficiary]),
      });
      expect(trace.calls![1]!.calls).to.deep.equal([
        { from: made, gas: '0x0', gasUsed: '0x0', to: beneficiary, input: '0x', value: '0x3', type: 'SELFDESTRUCT' },
      ]);
    });
  });
  /** A transaction sent to evmnode alone (anvil has not the chain's precompiles); its receipt. */
  async function sendToNode(wallet: HDNodeWallet, fields: Omit<TxFields, 'nonce'>): Promise<any> {
    const nonce = (await rpc(node.url, 'eth_getTransactionCount', [wallet.address, 'pending'])).result;
    const hash = await submit(node.url, await sign(wallet, { ...fields, nonce: Number(nonce) }));
    return waitForReceipt(node.url, hash);
  }

  describe('flatCallTracer', () => {
    it('flattens the call frames in parity format, in geth key order', async () => {
      const data = tracingAbi.encodeFunctionData('nested');
      const hash = await sendToBoth(devWallet(6), { to: at, data, value: 5n, gasLimit: 500_000n });
      const frames = await traced(node.url, hash, { tracer: 'callTracer' });
      const place = await placeOf(node.url, hash);
      const flat = await traced(node.url, hash, { tracer: 'flatCallTracer' });
      expect(flat).to.deep.equal([
        flatCall(frames, [], place),
        ...frames.calls!.map((call, index) => flatCall(call, [index], place)),
      ]);
      expect(Object.keys(flat[0])).to.deep.equal([
        'action',
        'blockHash',
        'blockNumber',
        'result',
        'subtraces',
        'traceAddress',
        'transactionHash',
        'transactionPosition',
        'type',
      ]);
      expect(Object.keys(flat[0].action)).to.deep.equal(['callType', 'from', 'gas', 'input', 'to', 'value']);
      const converted = await traced(node.url, hash, {
        tracer: 'flatCallTracer',
        tracerConfig: { convertParityErrors: true },
      });
      expect(converted[4]).to.deep.equal(flatCall(frames.calls![3]!, [3], place, 'Reverted'));
      // anvil has no flatCallTracer output.
      expect(await traced(anvil.url, hash, { tracer: 'flatCallTracer' })).to.deep.equal({});
    });

    it('drops the result of a frame that failed other than by revert', async () => {
      const data = tracingAbi.encodeFunctionData('starve');
      const hash = await sendToBoth(devWallet(6), { to: at, data, gasLimit: 200_000n });
      const frames = await traced(node.url, hash, { tracer: 'callTracer' });
      const place = await placeOf(node.url, hash);
      const flat = await traced(node.url, hash, {
        tracer: 'flatCallTracer',
        tracerConfig: { convertParityErrors: true },
      });
      expect(flat).to.deep.equal([flatCall(frames, [], place), flatCall(frames.calls![0]!, [0], place, 'Out of gas')]);
      expect(flat[1]).to.not.have.property('result');
    });

    it('shows creations and self-destructs', async () => {
      const beneficiary = lower(hexlify(randomBytes(20)));
      const data = tracingAbi.encodeFunctionData('makeAndDestroy', [beneficiary]);
      const hash = await sendToBoth(devWallet(6), { to: at, data, value: 3n, gasLimit: 500_000n });
      const frames = await traced(node.url, hash, { tracer: 'callTracer' });
      const [created, bye] = frames.calls!;
      const place = await placeOf(node.url, hash);
      expect(await traced(node.url, hash, { tracer: 'flatCallTracer' })).to.deep.equal([
        flatCall(frames, [], place),
        {
          action: { creationMethod: 'create', from: at, gas: created!.gas, init: created!.input, value: '0x3' },
          ...place,
          result: { address: created!.to, code: created!.output, gasUsed: created!.gasUsed },
          subtraces: 0,
          traceAddress: [0],
          type: 'create',
        },
        flatCall(bye!, [1], place),
        {
          action: { address: created!.to, balance: '0x3', refundAddress: beneficiary },
          ...place,
          subtraces: 0,
          traceAddress: [1, 0],
          type: 'suicide',
        },
      ]);
    });
  });

  describe('the chain precompiles', () => {
    it('shows STATICCALLs into the bank and address precompiles; flatCallTracer drops them unless asked', async () => {
      const sender = devWallet(2);
      const holder = lower(devWallet(8).address);
      const data = tracingAbi.encodeFunctionData('lookups', [holder, sender.address]);
      const receipt = await sendToNode(sender, { to: at, data, gasLimit: 200_000n });
      const bankInput = bank.encodeFunctionData('balance', [holder, 'usei']);
      const addrInput = addr.encodeFunctionData('getSeiAddr', [sender.address]);
      const answer = async (to: string, input: string) =>
        (await rpc(node.url, 'eth_call', [{ to, data: input }, receipt.blockNumber])).result as string;
      const [bankOutput, addrOutput] = await Promise.all([answer(BANK, bankInput), answer(ADDR, addrInput)]);
      const lookupGas = (input: string) => quantity(1_000n + 3n * BigInt(getBytes(input).length - 4));
      const trace = await traced(node.url, receipt.transactionHash, { tracer: 'callTracer' });
      expect(trace).to.deep.equal({
        from: lower(sender.address),
        gas: quantity(200_000n),
        gasUsed: receipt.gasUsed,
        to: at,
        input: data,
        output: tracingAbi.encodeFunctionResult('lookups', [
          bank.decodeFunctionResult('balance', bankOutput)[0],
          addr.decodeFunctionResult('getSeiAddr', addrOutput)[0],
        ]),
        calls: [
          {
            from: at,
            gas: '0xc350',
            gasUsed: lookupGas(bankInput),
            to: BANK,
            input: bankInput,
            output: bankOutput,
            type: 'STATICCALL',
          },
          {
            from: at,
            gas: '0xc350',
            gasUsed: lookupGas(addrInput),
            to: ADDR,
            input: addrInput,
            output: addrOutput,
            type: 'STATICCALL',
          },
        ],
        value: '0x0',
        type: 'CALL',
      });

      const place = await placeOf(node.url, receipt.transactionHash);
      expect(await traced(node.url, receipt.transactionHash, { tracer: 'flatCallTracer' })).to.deep.equal([
        { ...flatCall(trace, [], place), subtraces: 0 },
      ]);
      const withPrecompiles = await traced(node.url, receipt.transactionHash, {
        tracer: 'flatCallTracer',
        tracerConfig: { includePrecompiles: true },
      });
      expect(withPrecompiles).to.deep.equal([
        flatCall(trace, [], place),
        flatCall(trace.calls![0]!, [0], place),
        flatCall(trace.calls![1]!, [1], place),
      ]);
    });

    it("shows the bank's CALL from an ERC20 pointer's transfer", async () => {
      const registered = await registerPointer(node.node.native, await nativeSigner(devWallet(9).privateKey), 'utest');
      expect(registered.code, registered.log).to.equal(0);
      const pointer = hexlify(pointerAddressOf('utest'));
      const sender = devWallet(0);
      const to = lower(hexlify(randomBytes(20)));
      const data = erc20.encodeFunctionData('transfer', [to, 5n]);
      const receipt = await sendToNode(sender, { to: pointer, data, gasLimit: 200_000n });
      const trace = await traced(node.url, receipt.transactionHash, { tracer: 'callTracer' });
      const bankCall = trace.calls![0]!;
      // The pointer passes the bank all the gas it may (63/64 of what it has left), which only the run tells.
      expect(Number(bankCall.gas)).to.be.above(30_000).and.below(200_000);
      expect(trace).to.deep.equal({
        from: lower(sender.address),
        gas: quantity(200_000n),
        gasUsed: receipt.gasUsed,
        to: pointer,
        input: data,
        output: AbiCoder.defaultAbiCoder().encode(['bool'], [true]),
        calls: [
          {
            from: pointer,
            gas: bankCall.gas,
            // The bank's price of a send.
            gasUsed: quantity(30_000n),
            to: BANK,
            input: bankSend.encodeFunctionData('send', [sender.address, to, 'utest', 5n]),
            output: AbiCoder.defaultAbiCoder().encode(['bool'], [true]),
            value: '0x0',
            type: 'CALL',
          },
        ],
        value: '0x0',
        type: 'CALL',
      });
    });
  });

  describe('muxTracer', () => {
    it("gives each named tracer's result under its name, as that tracer alone gives it", async () => {
      const data = tracingAbi.encodeFunctionData('nested');
      const hash = await sendToBoth(devWallet(7), { to: at, data, value: 5n, gasLimit: 500_000n });
      const mux = await traced(node.url, hash, {
        tracer: 'muxTracer',
        tracerConfig: {
          noopTracer: null,
          flatCallTracer: { convertParityErrors: true },
          callTracer: { withLog: true },
        },
      });
      // Sorted by name, as geth prints a Go map.
      expect(Object.keys(mux)).to.deep.equal(['callTracer', 'flatCallTracer', 'noopTracer']);
      expect(mux).to.deep.equal({
        callTracer: await traced(node.url, hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }),
        flatCallTracer: await traced(node.url, hash, {
          tracer: 'flatCallTracer',
          tracerConfig: { convertParityErrors: true },
        }),
        noopTracer: {},
      });
      // anvil has no muxTracer output.
      expect(await traced(anvil.url, hash, { tracer: 'muxTracer', tracerConfig: { callTracer: {} } })).to.deep.equal(
        {},
      );
    });

    it('refuses a tracer name nobody registered', async () => {
      const receipt = await sendToNode(devWallet(7), { to: at, value: 1n, gasLimit: 50_000n });
      const answer = await rpc(node.url, 'debug_traceTransaction', [
        receipt.transactionHash,
        { tracer: 'muxTracer', tracerConfig: { nosuchTracer: {} } },
      ]);
      expect(answer.error).to.deep.equal({ code: -32000, message: 'tracer not found: nosuchTracer' });
    });
  });

  describe('debug_traceCall', () => {
    it('traces a call as the same call committed traces', async () => {
      const sender = devWallet(2);
      const holder = lower(devWallet(8).address);
      const data = tracingAbi.encodeFunctionData('lookups', [holder, sender.address]);
      const receipt = await sendToNode(sender, { to: at, data, gasLimit: 200_000n });
      const call = { from: sender.address, to: at, data, gas: quantity(200_000n) };
      for (const config of [{ tracer: 'callTracer' }, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }]) {
        const answer = await rpc(node.url, 'debug_traceCall', [call, receipt.blockNumber, config]);
        expect(answer.result).to.deep.equal(await traced(node.url, receipt.transactionHash, config));
      }
      // geth gives a call no block or transaction context.
      const flat = await rpc(node.url, 'debug_traceCall', [call, receipt.blockNumber, { tracer: 'flatCallTracer' }]);
      expect(flat.result).to.have.length(1);
      expect(flat.result[0]).to.deep.include({
        blockHash: null,
        blockNumber: 0,
        transactionHash: null,
        transactionPosition: 0,
      });
    });

    it('refuses a gas limit below the intrinsic gas or the calldata floor, in geth words', async () => {
      const to = lower(devWallet(9).address);
      const refusal = async (call: object) =>
        (await rpc(node.url, 'debug_traceCall', [call, 'latest', { tracer: 'callTracer' }])).error;
      expect(await refusal({ to, gas: quantity(20_000) })).to.deep.equal({
        code: -32000,
        message: 'tracing failed: intrinsic gas too low: have 20000, want 21000',
      });
      // 2,000 non-zero bytes cost 21,000 + 32,000 as intrinsic gas, and EIP-7623's floor asks 21,000 + 80,000.
      expect(await refusal({ to, input: `0x${'ab'.repeat(2000)}`, gas: quantity(100_000) })).to.deep.equal({
        code: -32000,
        message: 'tracing failed: insufficient gas for floor data gas cost: have 100000, want 101000',
      });
    });
  });
});

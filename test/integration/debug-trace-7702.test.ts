import { expect } from 'chai';
import { concat, getBytes, getCreateAddress, Interface, keccak256 } from 'ethers';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { mineOnBoth, startAnvil, type AnvilPeer } from '../support/anvil-peer.js';
import {
  structLogsAsGeth,
  without,
  withoutCodeHash,
  withoutEmpty,
  type StateMap,
  type StructTrace,
} from '../support/anvil-differences.js';
import { CHAIN_ID, devWallet, FEE_COLLECTOR, GWEI, lower, quantity, receiptOf, sign } from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
import { flatCall, placeOf, type Frame } from '../support/flat-calls.js';
import { compileContract } from '../support/solidity.js';

const tracing = compileContract('CallTracing');
const tracingAbi = new Interface(tracing.abi);
const target = new Interface([
  'function touch(uint256 value) payable returns (uint256)',
  'function read() view returns (uint256)',
  'function fail(string reason)',
]);
/** EIP-7702's cost of each authorization, part of the intrinsic gas. */
const PER_AUTHORIZATION = 25_000n;

/** A trace as JSON: a callTracer frame, or another tracer's result. */
type Diff = { post: StateMap; pre: StateMap };

/**
 * EIP-7702: an EOA delegates to CallTracing by a type-4 transaction, which also calls it; a later
 * plain transaction calls the EOA, which runs CallTracing's `nested` (calls into CallTarget and a
 * DELEGATECALL that writes the EOA's own storage). Every tracer's output is compared with anvil's,
 * and prestateTracer's for an authority no frame calls, in a transaction and in debug_traceCall.
 */
describe('debug_traceTransaction of EIP-7702 delegated calls', function () {
  this.timeout(120_000);
  let node: TestNode;
  let anvil: AnvilPeer;
  const deployer = devWallet(1);
  const sender = devWallet(2);
  const authority = devWallet(3);
  const eoa = lower(authority.address);
  /** An account that delegates in a transaction to another address. */
  const bystander = lower(devWallet(4).address);
  const delegate = lower(getCreateAddress({ from: deployer.address, nonce: 0 }));
  const targetAt = lower(getCreateAddress({ from: delegate, nonce: 1 }));
  const nested = tracingAbi.encodeFunctionData('nested');
  /**
   * The traced transactions: the type-4 one that delegates, a legacy call to the delegated EOA (one
   * gas price on both nodes), and a type-4 transfer whose authority (the bystander) it does not call.
   */
  const hashes = { delegation: '', delegatedCall: '', bystanderDelegation: '' };
  /** Their intrinsic gas, which anvil's callTracer leaves out of the top frame's `gas`. */
  const intrinsic = { delegation: 0n, delegatedCall: 0n };

  const calldataGas = (data: string) => getBytes(data).reduce((sum, byte) => sum + (byte === 0 ? 4n : 16n), 0n);

  before(async () => {
    [node, anvil] = await Promise.all([startTestNode(), startAnvil()]);
    await mineOnBoth(node.url, anvil, await sign(deployer, { nonce: 0, data: tracing.bytecode, gasLimit: 3_000_000n }));
    const authorization = await authority.authorize({ address: delegate, nonce: 0, chainId: CHAIN_ID });
    const delegation = await sign(sender, {
      type: 4,
      nonce: 0,
      to: eoa,
      data: nested,
      value: 5n,
      gasLimit: 500_000n,
      // A tip as high as the fee cap: both nodes charge the cap whatever their base fees, so balances agree.
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 2n * GWEI,
      authorizationList: [authorization],
    });
    hashes.delegation = await mineOnBoth(node.url, anvil, delegation);
    intrinsic.delegation = 21_000n + calldataGas(nested) + PER_AUTHORIZATION;
    const call = await sign(sender, { type: 0, nonce: 1, to: eoa, data: nested, value: 5n, gasLimit: 500_000n });
    hashes.delegatedCall = await mineOnBoth(node.url, anvil, call);
    intrinsic.delegatedCall = 21_000n + calldataGas(nested);
    const bystanderDelegation = await sign(sender, {
      type: 4,
      nonce: 2,
      to: lower(deployer.address),
      value: 1n,
      gasLimit: 100_000n,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 2n * GWEI,
      authorizationList: [await devWallet(4).authorize({ address: delegate, nonce: 0, chainId: CHAIN_ID })],
    });
    hashes.bystanderDelegation = await mineOnBoth(node.url, anvil, bystanderDelegation);
  });
  after(async () => {
    await Promise.all([node?.stop(), anvil?.stop()]);
  });

  async function traced(url: string, hash: string, config?: object): Promise<any> {
    const answer = await rpc(url, 'debug_traceTransaction', config === undefined ? [hash] : [hash, config]);
    expect(answer.error, JSON.stringify(answer.error)).to.equal(undefined);
    return answer.result;
  }

  /** Both nodes' answers for `hash` with `config`. */
  const both = (hash: string, config?: object) =>
    Promise.all([traced(node.url, hash, config), traced(anvil.url, hash, config)]);

  /** The COINBASE anvil mined `hash` with. */
  async function anvilCoinbase(hash: string): Promise<string> {
    const receipt = (await rpc(anvil.url, 'eth_getTransactionReceipt', [hash])).result;
    return (await rpc(anvil.url, 'eth_getBlockByHash', [receipt.blockHash, false])).result.miner;
  }

  /** evmnode's balance of `address` at the block before `hash`'s (each block here holds one transaction). */
  async function balanceBefore(address: string, hash: string): Promise<bigint> {
    const receipt = await receiptOf(node.url, hash);
    const parent = quantity(BigInt(receipt.blockNumber) - 1n);
    return BigInt((await rpc(node.url, 'eth_getBalance', [address, parent])).result);
  }

  /**
   * Both nodes' prestateTracer accounts of `hash` (with `includeEmpty`: anvil keeps empty accounts),
   * compared; evmnode's. Its coinbase is the fee collector, which takes the whole fee (decisions.md
   * D4), anvil's another account: evmnode's is checked, then both are left out.
   */
  async function comparedPrestate(hash: string): Promise<StateMap> {
    const config = { tracer: 'prestateTracer', tracerConfig: { includeEmpty: true } };
    const [ours, theirs] = (await both(hash, config)) as [StateMap, StateMap];
    expect(ours[FEE_COLLECTOR]).to.deep.equal({ balance: quantity(await balanceBefore(FEE_COLLECTOR, hash)) });
    expect(withoutCodeHash(without(ours, FEE_COLLECTOR))).to.deep.equal(without(theirs, await anvilCoinbase(hash)));
    return ours;
  }

  /** Both nodes' prestateTracer diffs of `hash`, compared as {@link comparedPrestate}; evmnode's. */
  async function comparedDiff(hash: string): Promise<Diff> {
    const config = { tracer: 'prestateTracer', tracerConfig: { diffMode: true } };
    const [ours, theirs] = (await both(hash, config)) as [Diff, Diff];
    const receipt = await receiptOf(node.url, hash);
    const before = await balanceBefore(FEE_COLLECTOR, hash);
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    expect(ours.pre[FEE_COLLECTOR]).to.deep.equal({ balance: quantity(before) });
    expect(ours.post[FEE_COLLECTOR]).to.deep.equal({ balance: quantity(before + fee) });
    const coinbase = await anvilCoinbase(hash);
    expect({
      post: withoutCodeHash(without(ours.post, FEE_COLLECTOR)),
      pre: withoutCodeHash(without(ours.pre, FEE_COLLECTOR)),
    }).to.deep.equal({ post: without(theirs.post, coinbase), pre: withoutEmpty(without(theirs.pre, coinbase)) });
    return ours;
  }

  it("lists an authority the transaction does not call, not its unused target, as anvil's prestateTracer", async () => {
    const ours = await comparedPrestate(hashes.bystanderDelegation);
    expect(ours[bystander]).to.deep.equal({
      balance: quantity(await balanceBefore(bystander, hashes.bystanderDelegation)),
    });
    expect(ours).to.not.have.property(delegate);
    const diff = await comparedDiff(hashes.bystanderDelegation);
    const designation = concat(['0xef0100', delegate]);
    expect(diff.post[bystander]).to.deep.equal({ code: designation, codeHash: keccak256(designation), nonce: 1 });
  });

  it("gives anvil's prestate for debug_traceCall with an authorization list, the authority included", async () => {
    const signer = devWallet(5);
    const authorization = await signer.authorize({ address: delegate, nonce: 0, chainId: CHAIN_ID });
    const call = {
      from: sender.address,
      to: deployer.address,
      value: quantity(1n),
      authorizationList: [
        {
          chainId: quantity(authorization.chainId),
          address: authorization.address,
          nonce: quantity(authorization.nonce),
          yParity: quantity(authorization.signature.yParity),
          r: authorization.signature.r,
          s: authorization.signature.s,
        },
      ],
    };
    const config = { tracer: 'prestateTracer', tracerConfig: { includeEmpty: true } };
    const [ours, theirs] = (await Promise.all(
      [node.url, anvil.url].map(async (url) => (await rpc(url, 'debug_traceCall', [call, 'latest', config])).result),
    )) as [StateMap, StateMap];
    const coinbase = (await rpc(anvil.url, 'eth_getBlockByNumber', ['latest', false])).result.miner;
    expect(withoutCodeHash(without(ours, FEE_COLLECTOR))).to.deep.equal(without(theirs, coinbase));
    expect(Object.keys(ours).sort()).to.deep.equal(
      [lower(sender.address), lower(deployer.address), lower(signer.address), FEE_COLLECTOR].sort(),
    );
  });

  for (const name of ['delegation', 'delegatedCall'] as const) {
    describe(name === 'delegation' ? 'the type-4 transaction that delegates' : 'a call to the delegated EOA', () => {
      it("logs every opcode as anvil does, and the receipt's gasUsed as `gas`", async () => {
        const [ours, theirs] = (await both(hashes[name])) as [StructTrace, StructTrace];
        expect(ours).to.deep.equal(structLogsAsGeth(theirs));
        expect(ours.gas).to.equal(Number((await receiptOf(node.url, hashes[name])).gasUsed));
        expect(ours.failed).to.equal(false);
        // The delegate's code runs in the EOA: the DELEGATECALL's SSTORE writes the EOA's slot 0.
        const sstores = ours.structLogs.filter((step) => step.op === 'SSTORE');
        expect(sstores.map((step) => step.depth)).to.deep.equal([2, 2]);
        const withMemory = (await both(hashes[name], { enableMemory: true, enableReturnData: true })) as StructTrace[];
        expect(withMemory[0]).to.deep.equal(structLogsAsGeth(withMemory[1]!));
      });

      it("gives callTracer's frames as anvil, from the EOA running the delegate's code", async () => {
        const receipt = await receiptOf(node.url, hashes[name]);
        const config = { tracer: 'callTracer' };
        const [ours, theirs] = (await both(hashes[name], config)) as [Frame, Frame];
        expect(ours).to.deep.equal({ ...theirs, gas: quantity(BigInt(theirs.gas) + intrinsic[name]) });
        expect(ours).to.deep.include({
          from: lower(sender.address),
          gas: quantity(500_000n),
          gasUsed: receipt.gasUsed,
          to: eoa,
          input: nested,
          value: '0x5',
          type: 'CALL',
        });
        expect(ours.calls!.map((call) => [call.type, call.from, call.to, call.input, call.error])).to.deep.equal([
          ['CALL', eoa, targetAt, target.encodeFunctionData('touch', [7n]), undefined],
          ['STATICCALL', eoa, targetAt, target.encodeFunctionData('read'), undefined],
          ['DELEGATECALL', eoa, targetAt, target.encodeFunctionData('touch', [9n]), undefined],
          ['CALL', eoa, targetAt, target.encodeFunctionData('fail', ['nope']), 'execution reverted'],
        ]);
        const onlyTop = await both(hashes[name], { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } });
        expect(onlyTop[0]).to.deep.equal({ ...onlyTop[1], gas: ours.gas });

        // anvil numbers the reverted frame's log too: the logs are checked against the receipt.
        const withLog = (await traced(node.url, hashes[name], {
          tracer: 'callTracer',
          tracerConfig: { withLog: true },
        })) as Frame;
        const logOf = (index: number, position: string) => ({
          address: receipt.logs[index].address,
          topics: receipt.logs[index].topics,
          data: receipt.logs[index].data,
          index: receipt.logs[index].logIndex,
          position,
        });
        expect((receipt.logs as { address: string }[]).map((log) => log.address)).to.deep.equal([
          eoa,
          targetAt,
          eoa,
          eoa,
          eoa,
        ]);
        expect(withLog.logs).to.deep.equal([logOf(0, '0x0'), logOf(2, '0x1'), logOf(4, '0x4')]);
        expect(withLog.calls!.map((call) => call.logs)).to.deep.equal([
          [logOf(1, '0x0')],
          undefined,
          [logOf(3, '0x0')],
          undefined,
        ]);
        const stripped = (frame: Frame): Frame => {
          const { calls, ...rest } = frame;
          delete rest['logs'];
          return calls === undefined ? rest : { ...rest, calls: calls.map(stripped) };
        };
        expect(stripped(withLog)).to.deep.equal(ours);
      });

      it("gives prestateTracer's accounts as anvil, the EOA with its delegation", async () => {
        const hash = hashes[name];
        const ours = await comparedPrestate(hash);
        const designation = concat(['0xef0100', delegate]);
        expect(ours[eoa]!['code']).to.equal(name === 'delegation' ? undefined : designation);
        expect(ours).to.have.property(delegate);
        expect(await traced(node.url, hash, { tracer: 'prestateTracer' })).to.deep.equal(ours);
      });

      it("gives prestateTracer's diff as anvil: the delegation and the EOA's storage", async () => {
        const ours = await comparedDiff(hashes[name]);
        const word = (value: number) => `0x${value.toString(16).padStart(64, '0')}`;
        // The EOA passes on the value it gets and its slot already holds 9 on the second run: unchanged then.
        expect(ours.post[eoa]).to.deep.equal(
          name === 'delegation'
            ? {
                code: concat(['0xef0100', delegate]),
                codeHash: keccak256(concat(['0xef0100', delegate])),
                nonce: 1,
                storage: { [word(0)]: word(9) },
              }
            : undefined,
        );
      });

      it('counts selectors with 4byteTracer as anvil; noopTracer gives {}', async () => {
        const [ours, theirs] = await both(hashes[name], { tracer: '4byteTracer' });
        expect(ours).to.deep.equal(theirs);
        expect(ours).to.deep.equal({
          [`${tracingAbi.getFunction('nested')!.selector}-0`]: 1,
          [`${target.getFunction('touch')!.selector}-32`]: 2,
          [`${target.getFunction('read')!.selector}-0`]: 1,
          [`${target.getFunction('fail')!.selector}-96`]: 1,
        });
        const noop = await both(hashes[name], { tracer: 'noopTracer' });
        expect(noop).to.deep.equal([{}, {}]);
      });

      it('flattens the frames with flatCallTracer and muxes the tracers (anvil gives {} for both)', async () => {
        const hash = hashes[name];
        const frames = (await traced(node.url, hash, { tracer: 'callTracer' })) as Frame;
        const place = await placeOf(node.url, hash);
        const flat = await traced(node.url, hash, { tracer: 'flatCallTracer' });
        expect(flat).to.deep.equal([
          flatCall(frames, [], place),
          ...frames.calls!.map((call, index) => flatCall(call, [index], place)),
        ]);
        expect(await traced(anvil.url, hash, { tracer: 'flatCallTracer' })).to.deep.equal({});

        const mux = await traced(node.url, hash, {
          tracer: 'muxTracer',
          tracerConfig: { callTracer: { withLog: true }, prestateTracer: { diffMode: true }, '4byteTracer': {} },
        });
        expect(mux).to.deep.equal({
          '4byteTracer': await traced(node.url, hash, { tracer: '4byteTracer' }),
          callTracer: await traced(node.url, hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }),
          prestateTracer: await traced(node.url, hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }),
        });
        expect(await traced(anvil.url, hash, { tracer: 'muxTracer', tracerConfig: { callTracer: {} } })).to.deep.equal(
          {},
        );
      });
    });
  }
});

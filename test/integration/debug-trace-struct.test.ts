import { expect } from 'chai';
import { getCreateAddress, Interface } from 'ethers';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { testToken } from '@evmnode/tools/contracts/test-token';
import { structLogsAsGeth, type StructTrace } from '../support/anvil-differences.js';
import { startAnvil, type AnvilPeer } from '../support/anvil-peer.js';
import {
  devWallet,
  ETHER,
  sign,
  sleep,
  submit,
  submitTogether,
  waitForReceipt,
  type TxFields,
} from '../support/chain-kit.js';
import { rpc } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';

const token = testToken();
const probe = compileContract('SimulationProbe');
const tokenAbi = new Interface(token.abi);
const probeAbi = new Interface(probe.abi);
const deployer = devWallet(1);
const tokenAt = getCreateAddress({ from: deployer.address, nonce: 0 }).toLowerCase();
const probeA = getCreateAddress({ from: deployer.address, nonce: 1 }).toLowerCase();
const probeB = getCreateAddress({ from: deployer.address, nonce: 2 }).toLowerCase();
const recipient = '0x00000000000000000000000000000000000000aa';
/** geth's keys of a struct log step, in its order. */
const STEP_KEYS = [
  'pc',
  'op',
  'gas',
  'gasCost',
  'depth',
  'error',
  'stack',
  'returnData',
  'memory',
  'storage',
  'refund',
];

/** Init code deploying `code` (up to 32 bytes, hex without 0x): PUSHn code, PUSH0, MSTORE, RETURN its bytes. */
function initCodeOf(code: string): string {
  const size = code.length / 2;
  const byte = (value: number) => value.toString(16).padStart(2, '0');
  return `0x${byte(0x5f + size)}${code}5f52` + `60${byte(size)}60${byte(32 - size)}f3`;
}

const isStructTrace = (result: unknown): result is StructTrace =>
  Array.isArray((result as Partial<StructTrace> | undefined)?.structLogs);

/** anvil's answer as geth writes it, when it is a struct log (other tracers' answers need nothing). */
const gethStyle = <T>(result: T): T => (isStructTrace(result) ? (structLogsAsGeth(result) as T) : result);

/** `ours` equals `theirs`, step by step (a difference names its step). */
function expectSameTrace(ours: StructTrace, theirs: StructTrace): void {
  const { structLogs: ourSteps, ...ourRest } = ours;
  const { structLogs: theirSteps, ...theirRest } = theirs;
  expect(ourRest).to.deep.equal(theirRest);
  ourSteps.forEach((step, index) =>
    expect(step, `step ${index}: ${JSON.stringify(step)} vs ${JSON.stringify(theirSteps[index])}`).to.deep.equal(
      theirSteps[index],
    ),
  );
  expect(ourSteps.length).to.equal(theirSteps.length);
}

describe('debug_trace* with the struct logger and 4byteTracer, compared with anvil', function () {
  this.timeout(120_000);
  let node: TestNode;
  let anvil: AnvilPeer;
  let hashes: Record<
    | 'deploy'
    | 'transfer'
    | 'erc20'
    | 'peek'
    | 'churn'
    | 'deepChurn'
    | 'revert'
    | 'outOfGas'
    | 'precompile'
    | 'underflow'
    | 'overflow'
    | 'create',
    string
  >;
  /** Two transactions evmnode mines in one block, in order. */
  let together: string[];

  /** Sends `raw` to both nodes; returns its hash once both mined it. */
  async function sendToBoth(raw: string): Promise<string> {
    const hash = await submit(node.url, raw);
    const sent = await rpc(anvil.url, 'eth_sendRawTransaction', [raw]);
    expect(sent.result, JSON.stringify(sent.error)).to.equal(hash);
    await waitForReceipt(node.url, hash);
    // anvil mines each transaction in a block of its own, at once; its receipts do not fit geth's schema.
    for (let tries = 0; (await rpc(anvil.url, 'eth_getTransactionReceipt', [hash])).result === null; tries++) {
      expect(tries, `anvil mines ${hash}`).to.be.lessThan(100);
      await sleep(50);
    }
    return hash;
  }

  const call = (wallet: number, nonce: number, fields: Omit<TxFields, 'nonce'>) =>
    sign(devWallet(wallet), { nonce, gasLimit: 200_000n, ...fields });

  before(async () => {
    [node, anvil] = await Promise.all([startTestNode({ config: { consensus: { block_time: 300 } } }), startAnvil()]);
    const tokenInit = token.bytecode + tokenAbi.encodeDeploy(['Token', 'TOK', 1_000_000n]).slice(2);
    const probeInit = probe.bytecode + probeAbi.encodeDeploy([5n, 6n]).slice(2);
    await sendToBoth(await sign(deployer, { nonce: 0, data: tokenInit, gasLimit: 2_000_000n }));
    const deploy = await sendToBoth(await sign(deployer, { nonce: 1, data: probeInit, gasLimit: 1_000_000n }));
    await sendToBoth(await sign(deployer, { nonce: 2, data: probeInit, gasLimit: 1_000_000n }));
    // Contracts of raw code: ADD on an empty stack; JUMPDEST PUSH0 PUSH0 JUMP, whose stack grows by one a turn.
    await sendToBoth(await sign(devWallet(9), { nonce: 0, data: initCodeOf('01'), gasLimit: 100_000n }));
    await sendToBoth(await sign(devWallet(9), { nonce: 1, data: initCodeOf('5b5f5f56'), gasLimit: 100_000n }));
    hashes = {
      underflow: await sendToBoth(await call(9, 2, { to: getCreateAddress({ from: devWallet(9).address, nonce: 0 }) })),
      overflow: await sendToBoth(await call(9, 3, { to: getCreateAddress({ from: devWallet(9).address, nonce: 1 }) })),
      deploy,
      transfer: await sendToBoth(await sign(devWallet(2), { nonce: 0, to: recipient, value: ETHER })),
      erc20: await sendToBoth(
        await call(1, 3, { to: tokenAt, data: tokenAbi.encodeFunctionData('transfer', [recipient, 1000n]) }),
      ),
      peek: await sendToBoth(await call(3, 0, { to: probeA, data: probeAbi.encodeFunctionData('peek', [probeB]) })),
      churn: await sendToBoth(
        await call(4, 0, { to: probeA, data: probeAbi.encodeFunctionData('churnThroughCall', [3n]) }),
      ),
      // Struct logs of some 400 KB at depth 2, written while the step that called them waits for the call to return.
      deepChurn: await sendToBoth(
        await call(4, 1, {
          to: probeA,
          data: probeAbi.encodeFunctionData('churnThroughCall', [40n]),
          gasLimit: 2_000_000n,
        }),
      ),
      revert: await sendToBoth(await call(5, 0, { to: probeA, data: probeAbi.encodeFunctionData('failWithReason') })),
      create: await sendToBoth(await call(5, 1, { to: probeA, data: probeAbi.encodeFunctionData('create') })),
      // Enough for the intrinsic gas and the way to its SSTORE, which runs out of gas.
      outOfGas: await sendToBoth(
        await call(6, 0, { to: probeA, data: probeAbi.encodeFunctionData('setStored', [7n]), gasLimit: 25_000n }),
      ),
      // SHA-256, a precompile, called by the transaction itself.
      precompile: await sendToBoth(
        await call(7, 0, { to: '0x0000000000000000000000000000000000000002', data: '0xdeadbeef01' }),
      ),
    };
    together = await submitTogether(node.url, [
      await call(8, 0, { to: recipient, value: 1n, gasLimit: 21_000n }),
      await call(8, 1, { to: probeB, data: probeAbi.encodeFunctionData('setStored', [9n]) }),
    ]);
    for (const hash of together) await waitForReceipt(node.url, hash);
  });
  after(async () => {
    await Promise.all([node?.stop(), anvil?.stop()]);
  });

  /** Both nodes' answers to debug_traceTransaction of `hash` with `config`, anvil's in geth's style. */
  async function traces<T = StructTrace>(hash: string, config?: object): Promise<{ ours: T; anvils: T }> {
    const params = config === undefined ? [hash] : [hash, config];
    const [ours, anvils] = await Promise.all([
      rpc(node.url, 'debug_traceTransaction', params),
      rpc(anvil.url, 'debug_traceTransaction', params),
    ]);
    expect(ours.error, JSON.stringify(ours.error)).to.equal(undefined);
    expect(anvils.error, JSON.stringify(anvils.error)).to.equal(undefined);
    return { ours: ours.result, anvils: gethStyle(anvils.result) };
  }

  it('gives a plain transfer no steps', async () => {
    const { ours, anvils } = await traces(hashes.transfer);
    expect(ours).to.deep.equal({ gas: 21000, failed: false, returnValue: '0x', structLogs: [] });
    expect(ours).to.deep.equal(anvils);
  });

  for (const name of ['deploy', 'erc20', 'peek', 'churn', 'deepChurn', 'revert'] as const) {
    it(`logs every opcode of the ${name} transaction as anvil does, keys in geth's order`, async () => {
      const { ours, anvils } = await traces(hashes[name]);
      expect(ours.structLogs.length).to.be.greaterThan(50);
      expectSameTrace(ours, anvils);
      for (const step of ours.structLogs) {
        const keys = Object.keys(step);
        expect(keys).to.deep.equal(STEP_KEYS.filter((key) => keys.includes(key)));
      }
    });
  }

  it('gives the receipt gas, the revert data and the storage read and written', async () => {
    const receipt = await waitForReceipt(node.url, hashes.revert);
    const { ours } = await traces(hashes.revert);
    expect(ours.gas).to.equal(Number(receipt.gasUsed));
    expect(ours.failed).to.equal(true);
    expect(ours.returnValue).to.equal(probeAbi.encodeErrorResult('Error', ['probe: not allowed']));
    const deployed = await traces(hashes.deploy);
    expect(deployed.ours).to.include({ failed: false, returnValue: probe.deployedBytecode });
    const churn = (await traces(hashes.churn)).ours.structLogs;
    const sstores = churn.filter((step) => step.op === 'SSTORE');
    expect(sstores.map((step) => step.depth)).to.deep.equal([2, 2, 2, 2, 2, 2]);
    const word = (value: number) => `0x${value.toString(16).padStart(64, '0')}`;
    expect(sstores.at(-1)!.storage).to.deep.equal({ [word(100)]: word(0), [word(101)]: word(0), [word(102)]: word(0) });
    // Each slot set from 0 to 1 and back in one transaction refunds 20000 - 100 (EIP-3529).
    expect(churn.at(-1)).to.include({ op: 'RETURN', depth: 1, refund: 3 * 19_900 });
  });

  it('charges a CREATE its own cost only, as geth (anvil adds the gas it passes on)', async () => {
    const { ours, anvils } = await traces(hashes.create);
    const at = ours.structLogs.findIndex((step) => step.op === 'CREATE');
    // 32000, and 2 per word of its 88 bytes of init code.
    expect(ours.structLogs[at]).to.deep.equal({ ...anvils.structLogs[at], gasCost: 32_000 + 3 * 2 });
    const others = (trace: StructTrace) => ({
      ...trace,
      structLogs: trace.structLogs.filter((_, index) => index !== at),
    });
    expectSameTrace(others(ours), others(anvils));
    expect(ours.structLogs.filter((step) => step.depth === 2).length).to.be.greaterThan(5);
  });

  it('marks the opcode that ran out of gas with its whole cost', async () => {
    const { ours, anvils } = await traces(hashes.outOfGas);
    expect(ours).to.include({ gas: 25000, failed: true, returnValue: '0x' });
    expectSameTrace(
      { ...ours, structLogs: ours.structLogs.slice(0, -1) },
      { ...anvils, structLogs: anvils.structLogs.slice(0, -1) },
    );
    // anvil words the error its own way and charges all the gas left; geth charges the SSTORE's
    // cost (a cold slot changed from one non-zero value to another: 2100 + 2900) and says `out of gas`.
    expect(ours.structLogs.at(-1)).to.deep.equal({
      ...anvils.structLogs.at(-1),
      gasCost: 5000,
      error: 'out of gas',
    });
    expect(ours.structLogs.at(-1)).to.include({ op: 'SSTORE', gas: 3551 });
  });

  it('words stack errors as geth on the opcode that finds them (anvil words them its own way)', async () => {
    const underflow = await traces(hashes.underflow);
    expect(underflow.ours.structLogs).to.deep.equal([
      { ...underflow.anvils.structLogs[0], error: 'stack underflow (0 <=> 2)' },
    ]);
    expect(underflow.ours.structLogs[0]).to.include({ pc: 0, op: 'ADD', gasCost: 3, depth: 1 });
    const overflow = await traces(hashes.overflow);
    expectSameTrace(
      { ...overflow.ours, structLogs: overflow.ours.structLogs.slice(0, -1) },
      { ...overflow.anvils, structLogs: overflow.anvils.structLogs.slice(0, -1) },
    );
    expect(overflow.ours.structLogs.at(-1)).to.deep.equal({
      ...overflow.anvils.structLogs.at(-1),
      error: 'stack limit reached 1024 (1023)',
    });
    expect(overflow.ours).to.include({ failed: true, returnValue: '0x' });
  });

  for (const config of [
    { disableStack: true },
    { disableStorage: true },
    { enableMemory: true },
    { enableReturnData: true },
    { enableMemory: true, enableReturnData: true, disableStack: true, disableStorage: true },
  ]) {
    it(`follows the config ${JSON.stringify(config)} as anvil does`, async () => {
      for (const hash of [hashes.peek, hashes.churn, hashes.erc20]) {
        const { ours, anvils } = await traces(hash, config);
        expectSameTrace(ours, anvils);
        const steps = ours.structLogs;
        if (config.disableStack === true) expect(steps.some((step) => 'stack' in step)).to.equal(false);
        if (config.disableStorage === true) expect(steps.some((step) => 'storage' in step)).to.equal(false);
        if (config.enableMemory === true) expect(steps.some((step) => 'memory' in step)).to.equal(true);
      }
      if (config.enableReturnData === true) {
        const { ours } = await traces(hashes.peek, config);
        const withData = ours.structLogs.filter((step) => 'returnData' in step);
        expect(withData.length).to.be.greaterThan(0);
        expect(withData[0]!.returnData).to.equal(`0x${'5'.padStart(64, '0')}`);
      }
    });
  }

  it('keeps the first `limit` steps (anvil ignores `limit`)', async () => {
    for (const hash of [hashes.peek, hashes.churn]) {
      const { ours: whole } = await traces(hash);
      const { ours: limited } = await traces(hash, { limit: 10, enableMemory: true });
      const { ours: withMemory } = await traces(hash, { enableMemory: true });
      expect(limited).to.deep.equal({ ...whole, structLogs: withMemory.structLogs.slice(0, 10) });
      expect((await traces(hash, { limit: 1000 })).ours).to.deep.equal(whole);
    }
  });

  it("takes `limit` as geth does, a JSON number (Go's int)", async () => {
    const answer = await rpc(node.url, 'debug_traceTransaction', [hashes.erc20, { limit: '0xa' }]);
    expect(answer.error).to.deep.equal({
      code: -32602,
      message: 'invalid argument 1: json: cannot unmarshal string into Go struct field TraceConfig.limit of type int',
    });
  });

  it('counts the selectors of calls with 4byteTracer as anvil does, precompiles left out', async () => {
    const byName = { tracer: '4byteTracer' };
    expect((await traces<Record<string, number>>(hashes.peek, byName)).ours).to.deep.equal({
      [`${probeAbi.getFunction('peek')!.selector}-32`]: 1,
      [`${probeAbi.getFunction('stored')!.selector}-0`]: 1,
    });
    for (const name of ['deploy', 'erc20', 'peek', 'churn', 'create', 'revert', 'transfer'] as const) {
      const { ours, anvils } = await traces<Record<string, number>>(hashes[name], byName);
      expect(ours).to.deep.equal(anvils);
    }
    expect((await traces<Record<string, number>>(hashes.precompile, byName)).ours).to.deep.equal({});
    // The frame CREATE opens carries code, not a call.
    expect((await traces<Record<string, number>>(hashes.create, byName)).ours).to.deep.equal({
      [`${probeAbi.getFunction('create')!.selector}-0`]: 1,
    });
  });

  it('traces a call (debug_traceCall) as anvil does', async () => {
    const request = {
      from: deployer.address,
      to: probeA,
      gas: '0x30000',
      data: probeAbi.encodeFunctionData('churnThroughCall', [2n]),
    };
    const config = { enableMemory: true, enableReturnData: true };
    const [ours, anvils] = await Promise.all([
      rpc(node.url, 'debug_traceCall', [request, 'latest', config]),
      rpc(anvil.url, 'debug_traceCall', [request, 'latest', config]),
    ]);
    expect(ours.result.structLogs.length).to.be.greaterThan(100);
    expectSameTrace(ours.result as StructTrace, gethStyle(anvils.result as StructTrace));
  });

  it('traces a block: one entry per transaction, in block order', async () => {
    const receipt = await waitForReceipt(node.url, together[0]!);
    const answer = await rpc(node.url, 'debug_traceBlockByNumber', [receipt.blockNumber]);
    expect(answer.error).to.equal(undefined);
    const expected = [];
    for (const hash of together) {
      expected.push({ txHash: hash, result: (await rpc(node.url, 'debug_traceTransaction', [hash])).result });
    }
    expect(answer.result).to.deep.equal(expected);
    expect(answer.result[0].result).to.deep.equal({ gas: 21000, failed: false, returnValue: '0x', structLogs: [] });
    expect(answer.result[1].result.structLogs.length).to.be.greaterThan(50);
  });
});

import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { getCreate2Address, getCreateAddress, hexlify, Interface, keccak256, zeroPadValue } from 'ethers';
import { pointerAddressOf } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { mineOnBoth, startAnvil, type AnvilPeer } from '../support/anvil-peer.js';
import { devWallet, lower, sign, submit, submitTogether, waitForReceipt, type TxFields } from '../support/chain-kit.js';
import { nativeSigner, registerPointer } from '../support/native-kit.js';
import { rpc } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';

const token = compileContract('PrestateToken');
const probe = compileContract('PrestateProbe');
const tokenAbi = new Interface(token.abi);
const probeAbi = new Interface(probe.abi);

/** Counts each opcode the transaction runs, by name. */
const OPCODE_COUNTER = `{
  count: {},
  step(log) { const name = log.op.toString(); this.count[name] = (this.count[name] || 0) + 1; },
  fault() {},
  result() { return this.count; }
}`;

/** Reads every `log`, `db` and `ctx` helper at the token's storage opcodes and at the end. */
const HELPER_READER = `{
  seen: [],
  step(log, db) {
    const name = log.op.toString();
    if (name !== 'SLOAD' && name !== 'SSTORE') return;
    const address = log.contract.getAddress();
    this.seen.push({
      op: name, code: log.op.toNumber(), push: log.op.isPush(), pc: log.getPC(), gas: log.getGas(),
      depth: log.getDepth(), refund: log.getRefund(), slot: toHex(toWord('0x' + log.stack.peek(0).toString(16))),
      stack: log.stack.length(), memory: log.memory.length(), bytes: toHex(log.memory.slice(0, 8)),
      caller: toHex(log.contract.getCaller()), address: toHex(address),
      value: log.contract.getValue().toString(), input: toHex(log.contract.getInput()),
      stored: toHex(db.getState(address, toWord('0x' + log.stack.peek(0).toString(16)))),
    });
  },
  fault() {},
  result(ctx, db) {
    return {
      seen: this.seen, type: ctx.type, from: toHex(ctx.from), to: toHex(ctx.to), input: toHex(ctx.input),
      gas: ctx.gas, value: ctx.value.toString(), output: toHex(ctx.output), gasUsed: ctx.gasUsed,
      nonce: db.getNonce(ctx.from), code: db.getCode(ctx.to).length, exists: db.exists(ctx.to),
      tokenBalance: db.getBalance(ctx.to).toString(),
      contract: toHex(toContract(ctx.from, 7)), precompile: isPrecompiled(toAddress('0x01')),
      contract2: toHex(toContract2(ctx.from, '0x07', ctx.input)),
      notPrecompile: isPrecompiled(ctx.to), sliced: toHex(slice(ctx.input, 0, 4)),
    };
  }
}`;

/**
 * What anvil gives otherwise than geth at the token's storage opcodes, read on evmnode alone:
 * anvil's \`getCost\` is the static cost, its \`getUint\` bytes, its \`getError\` null, and its
 * \`exists\` is true for an account that never existed.
 */
const STORAGE_COSTS = `{
  seen: [],
  step(log) {
    const name = log.op.toString();
    if (name === 'SLOAD' || name === 'SSTORE') {
      this.seen.push([log.getCost(), log.memory.getUint(64).toString(16), log.getError() === undefined]);
    }
  },
  fault() {},
  result(ctx, db) { return { seen: this.seen, exists: db.exists(ctx.to), never: db.exists(toAddress('0x1234')) }; }
}`;

/** Records the frames below the transaction's as `enter` and `exit` see them. */
const FRAME_RECORDER = `{
  frames: [],
  enter(frame) {
    this.frames.push({ type: frame.getType(), from: toHex(frame.getFrom()), to: toHex(frame.getTo()),
      input: toHex(frame.getInput()), gas: frame.getGas(), value: String(frame.getValue()) });
  },
  exit(res) {
    this.frames.push({ gasUsed: res.getGasUsed(), output: toHex(res.getOutput()), error: String(res.getError()) });
  },
  step() {},
  fault() {},
  result() { return this.frames; }
}`;

/** Records the opcodes that fail and what ctx says of the end. */
const FAULT_RECORDER = `{
  faults: [],
  step() {},
  fault(log) { this.faults.push([log.op.toString(), log.getError(), log.getDepth(), log.getPC()]); },
  result(ctx) { return { faults: this.faults, error: ctx.error, output: toHex(ctx.output), type: ctx.type }; }
}`;

/** Records the bank transfers a transaction makes, and the recipient's balance as the tracer sees it. */
const TRANSFER_RECORDER = `{
  ops: [],
  syntheticOp(op, db) {
    this.ops.push({ type: op.type, from: toHex(op.from), to: toHex(op.to), amount: op.amount.toString(),
      denom: op.denom, senderExists: db.exists(op.from) });
  },
  step() {},
  fault() {},
  result() { return this.ops; }
}`;

/** The result of tracing `hash` with the JS tracer `tracer` on the node at `url`, which must succeed. */
async function traced(url: string, hash: string, tracer: string | undefined): Promise<any> {
  const answer = await rpc(url, 'debug_traceTransaction', [hash, tracer === undefined ? {} : { tracer }]);
  expect(answer.error, JSON.stringify(answer.error)).to.equal(undefined);
  return answer.result;
}

describe('debug_traceTransaction with JavaScript tracers', function () {
  this.timeout(120_000);
  let node: TestNode;
  let anvil: AnvilPeer;
  const sender = devWallet(6);
  const from = lower(sender.address);
  const tokenAt = lower(getCreateAddress({ from, nonce: 0 }));
  const probeAt = lower(getCreateAddress({ from, nonce: 1 }));
  const recipient = '0x1111111111111111111111111111111111111111';
  const hashes: Record<string, string> = {};
  let nonce = 0;

  /** Signs a legacy transaction (the same gas price on both nodes) and has both nodes mine it. */
  async function send(name: string, fields: Omit<TxFields, 'nonce'>): Promise<void> {
    const raw = await sign(sender, { type: 0, gasLimit: 1_000_000n, ...fields, nonce: nonce++ });
    hashes[name] = await mineOnBoth(node.url, anvil, raw);
  }

  /** Both nodes' results of `tracer` on the transaction `name`. */
  async function both(name: string, tracer: string): Promise<[any, any]> {
    return [await traced(node.url, hashes[name]!, tracer), await traced(anvil.url, hashes[name]!, tracer)];
  }

  before(async () => {
    [node, anvil] = await Promise.all([startTestNode(), startAnvil()]);
    await send('deployToken', { data: token.bytecode + tokenAbi.encodeDeploy([1000n]).slice(2) });
    await send('deployProbe', { data: probe.bytecode });
    await send('fundProbe', { to: tokenAt, data: tokenAbi.encodeFunctionData('transfer', [probeAt, 100n]) });
    await send('erc20', { to: tokenAt, data: tokenAbi.encodeFunctionData('transfer', [recipient, 10n]) });
    await send('relay', { to: probeAt, data: probeAbi.encodeFunctionData('relay', [tokenAt, recipient, 5n]) });
  });

  after(async () => {
    await Promise.all([node?.stop(), anvil?.stop()]);
  });

  it("counts an ERC20 transfer's opcodes as anvil does", async () => {
    const [ours, theirs] = await both('erc20', OPCODE_COUNTER);
    expect(ours).to.deep.equal(theirs);
    expect(ours.SSTORE).to.equal(2);
    expect(ours.SLOAD).to.equal(2);
    expect(Object.values(ours).reduce((sum: number, count) => sum + (count as number), 0)).to.equal(215);
    expect(ours).to.include({ SLOAD: 2, SSTORE: 2, KECCAK256: 2, CALLER: 1, RETURN: 1 });
  });

  it("counts an ERC20 transfer's opcodes as the struct logger lists them", async () => {
    const { structLogs } = await traced(node.url, hashes.erc20!, undefined);
    const listed: Record<string, number> = {};
    for (const { op } of structLogs as { op: string }[]) listed[op] = (listed[op] ?? 0) + 1;
    expect(await traced(node.url, hashes.erc20!, OPCODE_COUNTER)).to.deep.equal(listed);
  });

  it("gives a block's trace one JS tracer result per transaction, as its transaction's trace", async () => {
    const receipt = await waitForReceipt(node.url, hashes.erc20!);
    const answer = await rpc(node.url, 'debug_traceBlockByNumber', [receipt.blockNumber, { tracer: OPCODE_COUNTER }]);
    expect(answer.result).to.deep.equal([
      { txHash: hashes.erc20, result: await traced(node.url, hashes.erc20!, OPCODE_COUNTER) },
    ]);
  });

  it("runs a block's JS traces one sandbox thread after another, not a thread held per transaction", async () => {
    const payer = devWallet(8);
    const raws = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        sign(payer, { type: 0, to: recipient, value: 1n, gasLimit: 21_000n, nonce: index }),
      ),
    );
    const sent = await submitTogether(node.url, raws);
    const { blockNumber } = await waitForReceipt(node.url, sent.at(-1)!);
    // The node runs in this process: its sandbox threads are this process's.
    const threads = () => readdirSync('/proc/self/task').length;
    const before = threads();
    let most = before;
    const sampler = setInterval(() => (most = Math.max(most, threads())), 5);
    try {
      const answer = await rpc(node.url, 'debug_traceBlockByNumber', [blockNumber, { tracer: OPCODE_COUNTER }]);
      const entries = answer.result as { txHash: string; result: unknown }[];
      expect(entries.map((entry) => entry.txHash)).to.deep.equal(sent);
      expect(entries[11]!.result).to.deep.equal({});
    } finally {
      clearInterval(sampler);
    }
    // Two threads take turns (one still closing when the next transaction opens); one per transaction would be twelve.
    expect(most - before).to.be.at.most(2);
  });

  it("keeps the node's answer its own whatever the script replaces, and the host functions out of its reach", async () => {
    const TAMPERING = `{
      setup() {
        JSON.stringify = () => '{"broken":';
        JSON.parse = () => ({});
        Object.defineProperty(globalThis, '__hooks', { get() { return {}; } });
      },
      step() {}, fault() {},
      result(ctx) { return { host: typeof host, hostGlobal: typeof __host, type: ctx.type }; }
    }`;
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [hashes.erc20, { tracer: TAMPERING }] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ]);
    const response = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(JSON.parse(await response.text())).to.deep.equal([
      { jsonrpc: '2.0', id: 1, result: { host: 'undefined', hostGlobal: 'undefined', type: 'CALL' } },
      { jsonrpc: '2.0', id: 2, result: '0xae3f2' },
    ]);
  });

  it("passes the node a script's error of megabytes cut at 4,096 characters, and host-call arguments of 1 KiB at most", async () => {
    const thrower = '{ step() {}, fault() {}, result() { throw new Error("x".repeat(5e6)); } }';
    expect((await rpc(node.url, 'debug_traceTransaction', [hashes.erc20, { tracer: thrower }])).error).to.deep.equal({
      code: -32000,
      message: `Error: ${'x'.repeat(4089)}...    in server-side tracer function 'result'`,
    });
    // The prelude's helpers slice with the script's own prototypes: a tampered one makes an address of a megabyte.
    const tamperer = `{
      setup() { Uint8Array.prototype.slice = function () { return new Uint8Array(1e6); }; },
      step() {}, fault() {},
      result(ctx, db) { try { db.getBalance(ctx.to); return 'asked'; } catch (error) { return String(error); } }
    }`;
    expect(await traced(node.url, hashes.erc20!, tamperer)).to.equal('RangeError: getBalance: arguments too long');
  });

  it('gives a result of megabytes, and text beyond ASCII, exactly as the script built them', async () => {
    const BIG = `{
      step() {}, fault() {},
      result(ctx) { return { text: 'é€😀'.repeat(200000), input: toHex(ctx.input), words: Array.from({ length: 3 }, (_, i) => i) }; }
    }`;
    const result = await traced(node.url, hashes.erc20!, BIG);
    expect(result.text).to.equal('é€😀'.repeat(200000));
    expect(Buffer.byteLength(result.text)).to.equal(9 * 200000);
    expect(result.input).to.equal(tokenAbi.encodeFunctionData('transfer', [recipient, 10n]));
    expect(result.words).to.deep.equal([0, 1, 2]);
  });

  it('gives the log, db and ctx helpers as anvil does', async () => {
    const [ours, theirs] = await both('erc20', HELPER_READER);
    expect(ours).to.deep.equal(theirs);
    expect((ours.seen as { op: string }[]).map((seen) => seen.op)).to.deep.equal([
      'SLOAD',
      'SSTORE',
      'SLOAD',
      'SSTORE',
    ]);
    expect(ours.contract).to.equal(lower(getCreateAddress({ from, nonce: 7 })));
    const input = tokenAbi.encodeFunctionData('transfer', [recipient, 10n]);
    expect(ours.contract2).to.equal(lower(getCreate2Address(from, zeroPadValue('0x07', 32), keccak256(input))));
  });

  it('runs JS tracers of concurrent traces side by side, each in a sandbox of its own', async () => {
    const alone = [
      await traced(node.url, hashes.erc20!, HELPER_READER),
      await traced(node.url, hashes.relay!, HELPER_READER),
      await traced(node.url, hashes.erc20!, OPCODE_COUNTER),
    ];
    const together = await Promise.all([
      traced(node.url, hashes.erc20!, HELPER_READER),
      traced(node.url, hashes.relay!, HELPER_READER),
      traced(node.url, hashes.erc20!, OPCODE_COUNTER),
    ]);
    expect(together).to.deep.equal(alone);
  });

  it("gives geth's costs, memory words and errors at the token's storage opcodes", async () => {
    // EIP-2929: a cold SLOAD, a warm SSTORE of a set slot, another cold SLOAD, a warm SSTORE setting a zero slot.
    expect(await traced(node.url, hashes.erc20!, STORAGE_COSTS)).to.deep.equal({
      seen: [
        [2100, '80', true],
        [2900, '80', true],
        [2100, '80', true],
        [20000, '80', true],
      ],
      exists: true,
      never: false,
    });
  });

  it('calls enter and exit for the frames below the transaction as anvil does', async () => {
    const [ours, theirs] = await both('relay', FRAME_RECORDER);
    expect(ours).to.deep.equal(theirs);
    expect(ours).to.have.length(2);
    expect(ours[0]).to.include({ type: 'CALL', from: probeAt, to: tokenAt, value: '0' });
    expect(ours[1]).to.include({ error: 'undefined' });
  });

  it('calls fault at the REVERT of an ERC20 transfer beyond the balance', async () => {
    // anvil calls fault here too, but words the error as revm does ('Revert'), not geth: exact values instead.
    const call = {
      from: '0x3333333333333333333333333333333333333333',
      to: tokenAt,
      data: tokenAbi.encodeFunctionData('transfer', [from, 1n]),
    };
    const answer = await rpc(node.url, 'debug_traceCall', [call, 'latest', { tracer: FAULT_RECORDER }]);
    expect(answer.error, JSON.stringify(answer.error)).to.equal(undefined);
    expect(answer.result).to.deep.equal({
      faults: [['REVERT', 'execution reverted', 1, 351]],
      error: 'execution reverted',
      // Solidity's Panic(0x11): arithmetic underflow.
      output: `0x4e487b71${'11'.padStart(64, '0')}`,
      type: 'CALL',
    });
  });

  it("calls syntheticOp for the bank transfer of an ERC20 pointer's transfer", async () => {
    const registered = await registerPointer(node.node.native, await nativeSigner(devWallet(9).privateKey), 'utest');
    expect(registered.code, registered.log).to.equal(0);
    const payer = devWallet(0);
    const to = '0x2222222222222222222222222222222222222222';
    const raw = await sign(payer, {
      nonce: 0,
      to: hexlify(pointerAddressOf('utest')),
      data: new Interface(['function transfer(address to, uint256 value) returns (bool)']).encodeFunctionData(
        'transfer',
        [to, 5n],
      ),
      gasLimit: 200_000n,
    });
    const hash = await submit(node.url, raw);
    expect((await waitForReceipt(node.url, hash)).status).to.equal('0x1');
    expect(await traced(node.url, hash, TRANSFER_RECORDER)).to.deep.equal([
      { type: 'transfer', from: lower(payer.address), to, amount: '5', denom: 'utest', senderExists: true },
    ]);
  });

  it("bounds a tracer's reads of memory and stack as geth does, a slice's zeros at 1 MiB", async () => {
    // geth's own test contract: PUSH1 0xff, PUSH1 0, MSTORE8, STOP; memory is one word at the STOP.
    const at = '0x00000000000000000000000000000000000000aa';
    const atStop = async (read: string) => {
      const tracer = `{ step(log, db) { if (log.op.toString() === 'STOP') this.read = ${read}; }, fault() {}, result() { return this.read; } }`;
      const config = { tracer, stateOverrides: { [at]: { code: '0x60ff60005300' } } };
      return rpc(node.url, 'debug_traceCall', [{ to: at }, 'latest', config]);
    };
    const failure = (message: string) => ({
      code: -32000,
      message: `${message}    in server-side tracer function 'step'`,
    });
    expect((await atStop('log.memory.slice(0, 2)')).result).to.deep.equal({ 0: 255, 1: 0 });
    // The largest slice allowed: 1 MiB of zeros past the word of memory.
    expect((await atStop('log.memory.slice(5, 1024 * 1024 + 32).length')).result).to.equal(1024 * 1024 + 27);
    expect((await atStop('log.memory.slice(5, 1025 * 1024)')).error).to.deep.equal(
      failure('RangeError: reached limit for padding memory slice: 1049568'),
    );
    // Refused before the node's thread builds a slice of half a gigabyte.
    expect((await atStop('log.memory.slice(0, 5e8)')).error).to.deep.equal(
      failure('RangeError: reached limit for padding memory slice: 499999968'),
    );
    expect((await atStop('log.memory.slice(-1, 2)')).error).to.deep.equal(
      failure('RangeError: tracer accessed out of bound memory: offset -1, end 2'),
    );
    expect((await atStop('log.memory.getUint(0).toString(16)')).result).to.equal(`ff${'0'.repeat(62)}`);
    expect((await atStop('log.memory.getUint(1)')).error).to.deep.equal(
      failure('RangeError: tracer accessed out of bound memory: available 32, offset 1, size 32'),
    );
    expect((await atStop('log.stack.peek(-1)')).error).to.deep.equal(
      failure('RangeError: tracer accessed out of bound stack: size 0, index -1'),
    );
    // Offsets are read as integers; one that is none is out of bounds, not 0.
    expect((await atStop('log.memory.slice(0.5, 2.9)')).result).to.deep.equal({ 0: 255, 1: 0 });
    expect((await atStop('log.memory.slice(0, Infinity)')).error).to.deep.equal(
      failure('RangeError: tracer accessed out of bound memory: offset 0, end Infinity'),
    );
    expect((await atStop('log.memory.getUint(NaN)')).error).to.deep.equal(
      failure('RangeError: tracer accessed out of bound memory: available 32, offset NaN, size 32'),
    );
    expect((await atStop("log.stack.peek('top')")).error).to.deep.equal(
      failure('RangeError: tracer accessed out of bound stack: size 0, index top'),
    );
    // geth's global helpers take byte arrays, within their bounds.
    expect((await atStop('toHex(slice([1, 2, 3], 1, 3))')).result).to.equal('0x0203');
    expect((await atStop('slice([1, 2, 3], 1, 5)')).error).to.deep.equal(
      failure('RangeError: Tracer accessed out of bound memory: available 3, offset 1, size 4'),
    );
    for (const call of ['toHex(123)', 'toAddress(123)', 'toWord({})', 'slice(7, 0, 1)', 'db.getCode(null)']) {
      expect((await atStop(call)).error, call).to.deep.equal(failure('TypeError: invalid buffer type'));
    }
  });

  it('stops an endless loop at the timeout, and the node keeps serving', async () => {
    const answer = await rpc(node.url, 'debug_traceTransaction', [
      hashes.erc20,
      { tracer: '{ step() { while (true) {} }, fault() {}, result() {} }', timeout: '500ms' },
    ]);
    expect(answer.error).to.deep.equal({
      code: -32000,
      message: 'execution timeout: the trace took longer than 500ms',
    });
    expect(await traced(node.url, hashes.erc20!, OPCODE_COUNTER)).to.have.property('SSTORE', 2);
  });

  it("answers other calls while a tracer's hook computes: the script runs off the node's thread", async () => {
    const looping = rpc(node.url, 'debug_traceTransaction', [
      hashes.erc20,
      { tracer: '{ step() { while (true) {} }, fault() {}, result() {} }', timeout: '3s' },
    ]);
    let traceEnded = false;
    void looping.then(() => (traceEnded = true));
    await sleep(200);
    const blockNumber = await rpc(node.url, 'eth_blockNumber', []);
    expect(blockNumber.result).to.match(/^0x[0-9a-f]+$/);
    // With the script on the node's thread, this answer would have waited for the timeout.
    expect(traceEnded).to.equal(false);
    expect((await looping).error).to.deep.equal({
      code: -32000,
      message: 'execution timeout: the trace took longer than 3s',
    });
  });

  it('answers eth_call and other traced calls while traced calls hold their tracers in `result`', async () => {
    const SHA256_OF_01 = '0x4bf5122f344554c53bde2ebb8cd2b7e3d1600ad631c385a5d7cce23c7785459a';
    const sha256Call = { to: '0x0000000000000000000000000000000000000002', data: '0x01' };
    // More than the VMs simulated calls share: traced calls once held them all, and every eth_call waited.
    const holding = Array.from({ length: 3 }, () =>
      rpc(node.url, 'debug_traceCall', [
        sha256Call,
        'latest',
        { tracer: '{ step() {}, fault() {}, result() { while (true) {} } }', timeout: '3s' },
      ]),
    );
    await sleep(300);
    // Answered at once, where they waited for the tracers' timeout before.
    const started = performance.now();
    expect((await rpc(node.url, 'eth_call', [sha256Call, 'latest'])).result).to.equal(SHA256_OF_01);
    const traced = await rpc(node.url, 'debug_traceCall', [sha256Call, 'latest', { tracer: 'callTracer' }]);
    expect(traced.result).to.include({ type: 'CALL', output: SHA256_OF_01 });
    expect(performance.now() - started).to.be.below(1500);
    for (const answer of await Promise.all(holding)) {
      expect(answer.error).to.deep.equal({ code: -32000, message: 'execution timeout: the trace took longer than 3s' });
    }
  });

  it('terminates the thread of a script that does not stop at its timeout, and the node keeps serving', async () => {
    // QuickJS checks for interrupts every 10,000 calls or loop turns: each turn here takes about 100 ms.
    const STUBBORN = `{
      step() { const numbers = []; for (let i = 0; i < 1e6; i++) numbers.push(i); for (;;) JSON.stringify(numbers); },
      fault() {}, result() {}
    }`;
    const started = Date.now();
    const answer = await rpc(node.url, 'debug_traceTransaction', [
      hashes.erc20,
      { tracer: STUBBORN, timeout: '500ms' },
    ]);
    expect(answer.error).to.deep.equal({
      code: -32000,
      message: 'execution timeout: the trace took longer than 500ms',
    });
    // Answered once the thread was terminated, a second past the timeout, not when the script would have stopped.
    expect(Date.now() - started).to.be.below(10_000);
    expect(await traced(node.url, hashes.erc20!, OPCODE_COUNTER)).to.have.property('SSTORE', 2);
  });

  it('stops a 1 GB allocation at the memory limit, and the node keeps serving', async () => {
    const answer = await rpc(node.url, 'debug_traceTransaction', [
      hashes.erc20,
      { tracer: '{ step() { this.big = new Uint8Array(1024 * 1024 * 1024); }, fault() {}, result() {} }' },
    ]);
    expect(answer.error).to.deep.equal({
      code: -32000,
      message: "InternalError: out of memory    in server-side tracer function 'step'",
    });
    expect(await traced(node.url, hashes.erc20!, OPCODE_COUNTER)).to.have.property('SSTORE', 2);
  });

  it("gives a tracer's sandbox memory back when its trace ends, at its memory limit or not", async () => {
    const FILLER = '{ step() { (this.held ??= []).push(new Uint8Array(1024 * 1024)); }, fault() {}, result() {} }';
    // The sandbox threads' memories are the process's: dropped ones are unmapped when their threads end.
    const resident = async () => {
      globalThis.gc!();
      await sleep(200);
      return process.memoryUsage().rss;
    };
    const before = await resident();
    for (let trace = 0; trace < 12; trace++) {
      const answer = await rpc(node.url, 'debug_traceTransaction', [hashes.erc20, { tracer: FILLER }]);
      expect(answer.error).to.deep.equal({
        code: -32000,
        message: "InternalError: out of memory    in server-side tracer function 'step'",
      });
      expect(await traced(node.url, hashes.erc20!, OPCODE_COUNTER)).to.have.property('SSTORE', 2);
    }
    // Each filler failed with its sandbox's 96 MiB full: sandboxes kept after their traces would show.
    expect((await resident()) - before).to.be.below(256 * 1024 * 1024);
  });

  it("bounds the memory all tracers' sandboxes grow together: past it a trace gets -32005, and it comes back", async () => {
    // 70 MiB touched, then held for a while: two such sandboxes fill most of what all may grow.
    const HOLDER = `{
      step() {}, fault() {},
      result() {
        const held = [];
        for (let n = 0; n < 70; n++) { const bytes = new Uint8Array(1024 * 1024); bytes.fill(1); held.push(bytes); }
        const until = Date.now() + 3000;
        while (Date.now() < until) {}
        return held.length;
      }
    }`;
    const trace = () => rpc(node.url, 'debug_traceTransaction', [hashes.erc20, { tracer: HOLDER, timeout: '10s' }]);
    // One holds its 70 MiB before three more start: sandboxes growing at once can each take a part
    // of what is left and all be refused, so only the first one's success is certain.
    const first = trace();
    await sleep(1000);
    const others = await Promise.all(Array.from({ length: 3 }, trace));
    expect((await first).result).to.equal(70);
    const refused = { code: -32005, message: 'server busy: too much memory held by JS tracers' };
    const refusals = others.filter((answer) => answer.result !== 70).map((answer) => answer.error);
    // What the first left is room for one more at most.
    expect(refusals).to.have.length.of.at.least(2);
    expect(refusals).to.deep.equal(Array(refusals.length).fill(refused));
    // Their threads gone, what they grew is free again.
    await sleep(300);
    expect((await trace()).result).to.equal(70);
  });

  it('refuses JavaScript tracers on a node with trace_allow_js_tracers = false', async () => {
    const closed = await startTestNode({ config: { evm: { trace_allow_js_tracers: false } } });
    try {
      const answer = await rpc(closed.url, 'debug_traceTransaction', [hashes.erc20, { tracer: OPCODE_COUNTER }]);
      expect(answer.error).to.deep.equal({
        code: -32000,
        message: 'JavaScript tracers are disabled on this node (trace_allow_js_tracers = false)',
      });
    } finally {
      await closed.stop();
    }
  });
});

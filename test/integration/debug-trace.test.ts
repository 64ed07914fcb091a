import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, sign, submitTogether, waitForReceipt } from '../support/chain-kit.js';
import { post, rpc } from '../support/rpc-client.js';
import { WsClient } from '../support/ws-client.js';

const RECIPIENT = '0x00000000000000000000000000000000000000cc';
const NOOP = { tracer: 'noopTracer' };

/** Sends `count` transfers of one dev account in one block; its height and their hashes. */
async function transfersInOneBlock(node: TestNode, count: number): Promise<{ height: string; hashes: string[] }> {
  const raws = await Promise.all(
    Array.from({ length: count }, (_, nonce) => sign(devWallet(0), { nonce, to: RECIPIENT, value: 1n })),
  );
  return inOneBlock(node, raws);
}

/** Submits signed transactions together, which must land in one block; its height and their hashes, in block order. */
async function inOneBlock(node: TestNode, raws: readonly string[]): Promise<{ height: string; hashes: string[] }> {
  const hashes = await submitTogether(node.url, raws);
  const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
  const heights = new Set(receipts.map((receipt) => receipt.blockNumber));
  expect(heights.size, 'all in one block').to.equal(1);
  const ordered = [...receipts].sort((a, b) => Number(a.transactionIndex) - Number(b.transactionIndex));
  return { height: [...heights][0]!, hashes: ordered.map((receipt) => receipt.transactionHash) };
}

describe('debug-trace: methods, errors and limits', () => {
  let node: TestNode;
  let block: { height: string; hashes: string[] };
  before(async () => {
    node = await startTestNode({
      plugins: ['eth-query', 'eth-send', 'debug-trace'],
      config: { consensus: { block_time: 300 }, evm: { max_trace_lookback_blocks: 20 } },
    });
    block = await transfersInOneBlock(node, 3);
  });
  after(() => node.stop());

  it('traces a transaction, a block (one entry per transaction, in block order) and a call', async () => {
    expect((await rpc(node.url, 'debug_traceTransaction', [block.hashes[1], NOOP])).result).to.deep.equal({});
    expect((await rpc(node.url, 'debug_traceBlockByNumber', [block.height, NOOP])).result).to.deep.equal(
      block.hashes.map((txHash) => ({ txHash, result: {} })),
    );
    const { hash } = (await rpc(node.url, 'eth_getBlockByNumber', [block.height, false])).result;
    expect((await rpc(node.url, 'debug_traceBlockByHash', [hash, NOOP])).result).to.deep.equal(
      block.hashes.map((txHash) => ({ txHash, result: {} })),
    );
    expect(
      (await rpc(node.url, 'debug_traceCall', [{ from: devWallet(5).address, to: RECIPIENT }, 'latest', NOOP])).result,
    ).to.deep.equal({});
  });

  it('keeps no VM of a trace of a block not traced before', async () => {
    // Each such trace builds a VM; ethereumjs' EVM subscribes to its Common for good, so a Common shared
    // with the chain would let a client grow the heap one VM per block it asks for.
    const heights: string[] = [];
    for (let nonce = 0; nonce < 3; nonce++) {
      const raw = await sign(devWallet(8), { nonce, to: RECIPIENT, value: 1n });
      const hash = (await rpc(node.url, 'eth_sendRawTransaction', [raw])).result;
      heights.push((await waitForReceipt(node.url, hash)).blockNumber);
    }
    const subscribers = () => node.node.chain.common.events.listenerCount('hardforkChanged');
    const before = subscribers();
    for (const height of heights) {
      const { result } = await rpc(node.url, 'debug_traceBlockByNumber', [height, { ...NOOP, timeout: '5s' }]);
      expect(result).to.have.length(1);
    }
    expect(subscribers()).to.equal(before);
  });

  it("answers geth's errors: genesis, unknown transaction and block, pending calls, unknown tracers, bad timeouts", async () => {
    const error = async (method: string, params: unknown[]) => (await rpc(node.url, method, params)).error;
    expect(await error('debug_traceBlockByNumber', ['0x0', NOOP])).to.deep.equal({
      code: -32000,
      message: 'genesis is not traceable',
    });
    expect(await error('debug_traceTransaction', [`0x${'12'.repeat(32)}`, NOOP])).to.deep.equal({
      code: -32000,
      message: 'transaction not found',
    });
    expect(await error('debug_traceBlockByHash', [`0x${'34'.repeat(32)}`, NOOP])).to.deep.equal({
      code: -32001,
      message: 'block not found by hash',
    });
    expect(await error('debug_traceCall', [{ to: RECIPIENT }, 'pending', NOOP])).to.deep.equal({
      code: -32000,
      message: 'tracing on top of pending is not supported',
    });
    expect(await error('debug_traceTransaction', [block.hashes[0], { tracer: 'noSuchTracer' }])).to.deep.equal({
      code: -32000,
      message: 'tracer not found: noSuchTracer',
    });
    // Timeouts are Go durations, with Go's errors.
    const timeoutError = (timeout: string) => error('debug_traceTransaction', [block.hashes[0], { ...NOOP, timeout }]);
    expect(await timeoutError('soon')).to.deep.equal({ code: -32000, message: 'time: invalid duration "soon"' });
    expect(await timeoutError('')).to.deep.equal({ code: -32000, message: 'time: invalid duration ""' });
    expect(await timeoutError('100')).to.deep.equal({
      code: -32000,
      message: 'time: missing unit in duration "100"',
    });
    expect(await timeoutError('5sec')).to.deep.equal({
      code: -32000,
      message: 'time: unknown unit "sec" in duration "5sec"',
    });
    expect(await timeoutError('1ns'.repeat(1_000_000))).to.deep.equal({
      code: -32000,
      message: `time: invalid duration "${'1ns'.repeat(33)}1..."`,
    });
    expect(await timeoutError('-1s')).to.deep.equal({
      code: -32000,
      message: 'execution timeout: the trace took longer than -1s',
    });
    for (const timeout of ['1m30s', '2h45m', '1.5s', '.5s', '0.001h'])
      expect(await timeoutError(timeout)).to.equal(undefined);
    expect(await error('debug_traceTransaction', [block.hashes[0], { tracer: 5 }])).to.deep.equal({
      code: -32602,
      message:
        'invalid argument 1: json: cannot unmarshal number into Go struct field TraceConfig.tracer of type string',
    });
  });

  it('is HTTP-only', async () => {
    const ws = await WsClient.connect(node.wsUrl);
    try {
      expect((await ws.call('debug_traceTransaction', [block.hashes[0], NOOP])).error).to.deep.equal({
        code: -32601,
        message: 'the debug namespace is HTTP-only: call debug_traceTransaction over HTTP',
      });
    } finally {
      ws.close();
    }
  });

  it('fails a trace past its timeout whole, never with a partial result', async () => {
    // Init code that counts down from 65,536 (about 460,000 steps): its block takes far longer
    // than 1 ms to trace, whatever the machine, where a block of transfers may not.
    const loop = '0x62010000' + '5b' + '600190' + '03' + '80' + '6004' + '57' + '00';
    const raw = await sign(devWallet(7), { nonce: 0, data: loop, gasLimit: 2_000_000n });
    const hash = (await rpc(node.url, 'eth_sendRawTransaction', [raw])).result;
    const { blockNumber, status } = await waitForReceipt(node.url, hash);
    expect(status).to.equal('0x1');
    const { error } = await rpc(node.url, 'debug_traceBlockByNumber', [blockNumber, { ...NOOP, timeout: '1ms' }]);
    expect(error).to.deep.equal({ code: -32000, message: 'execution timeout: the trace took longer than 1ms' });
  });

  it('refuses struct logs past their size budget, and serves the same trace narrowed', async () => {
    // Init code that grows memory to 32 KiB, then loops 1,024 times: with enableMemory, every
    // step would carry 1,024 memory words (about 400 MB of struct logs in all).
    const loop = '0x600161' + '7fe052' + '610400' + '5b' + '600190' + '03' + '80' + '6009' + '57' + '00';
    const raw = await sign(devWallet(6), { nonce: 0, data: loop, gasLimit: 200_000n });
    const hash = (await rpc(node.url, 'eth_sendRawTransaction', [raw])).result;
    expect((await waitForReceipt(node.url, hash)).status).to.equal('0x1');

    expect((await rpc(node.url, 'debug_traceTransaction', [hash, { enableMemory: true }])).error).to.deep.equal({
      code: -32000,
      message:
        'trace too large: its struct logs pass 32 MiB; narrow them with limit, disableStack, disableStorage, or without enableMemory',
    });
    const narrowed = (await rpc(node.url, 'debug_traceTransaction', [hash, {}])).result;
    expect(narrowed.failed).to.equal(false);
    // Four set-up steps, seven a turn of the loop, and the STOP.
    expect(narrowed.structLogs).to.have.length(4 + 1024 * 7 + 1);
  });

  it('traces steps over a megabyte of memory without copying it at each step, unless asked for', async () => {
    // Init code that grows memory to 1 MiB (2.2M gas), then loops until its gas runs out: about
    // 200,000 steps. Copying the memory at each of them took the trace past its 5 s timeout.
    const loop = '0x6001620fffe0525b600756';
    const trace = (config: object) =>
      rpc(node.url, 'debug_traceCall', [{ data: loop, gas: '0x2dc6c0' }, 'latest', config]);
    type Steps = { failed: boolean; structLogs: { op: string; memory?: string[] }[] };
    const plain = (await trace({ limit: 3 })).result as Steps;
    expect(plain.failed).to.equal(true);
    expect(plain.structLogs.map((log) => log.op)).to.deep.equal(['PUSH1', 'PUSH3', 'MSTORE']);
    const withMemory = (await trace({ limit: 5, enableMemory: true })).result as Steps;
    // Memory appears from the step after MSTORE: 32,768 words of it.
    expect(withMemory.structLogs.map((log) => log.memory?.length ?? 0)).to.deep.equal([0, 0, 0, 32_768, 32_768]);
    const padded = (byte: string) => `0x${byte.padStart(64, '0')}`;
    expect(withMemory.structLogs[3]!.memory!.slice(-2)).to.deep.equal([padded(''), padded('1')]);
  });

  it('refuses call frames past 32 MiB as JSON, and serves the same call with fewer frames or onlyTopCall', async () => {
    // Code that calls RECIPIENT `count` times with 1 KiB of calldata: 20,000 calls make about
    // 45 MB of callTracer JSON, from 3M gas.
    const caller = (count: number) =>
      `0x62${count.toString(16).padStart(6, '0')}5b5f5f6104005f5f60${RECIPIENT.slice(-2)}5af150600190038060045700`;
    const contract = '0x00000000000000000000000000000000000000c1';
    const traceOf = (count: number, tracer: string, tracerConfig = {}) =>
      rpc(node.url, 'debug_traceCall', [
        { from: devWallet(5).address, to: contract, gas: '0x989680' },
        'latest',
        { tracer, tracerConfig, stateOverrides: { [contract]: { code: caller(count) } } },
      ]);
    const tooLarge = { code: -32000, message: 'trace too large: its call frames pass 32 MiB as JSON' };
    expect((await traceOf(20_000, 'callTracer')).error).to.deep.equal(tooLarge);
    expect((await traceOf(20_000, 'flatCallTracer')).error).to.deep.equal(tooLarge);

    const top = (await traceOf(20_000, 'callTracer', { onlyTopCall: true })).result;
    expect(top).to.include({ from: devWallet(5).address.toLowerCase(), to: contract, type: 'CALL' });
    expect(top).to.not.have.property('calls');
    const input = `0x${'00'.repeat(1024)}`;
    const few = (await traceOf(100, 'callTracer')).result;
    expect(few.calls).to.have.length(100);
    expect(few.calls[99]).to.include({ from: contract, to: RECIPIENT, input, value: '0x0', type: 'CALL' });
    const flat = (await traceOf(100, 'flatCallTracer')).result;
    expect(flat).to.have.length(101);
    expect(flat[100].traceAddress).to.deep.equal([99]);
    expect(flat[100].action).to.include({ callType: 'call', from: contract, to: RECIPIENT, input });
  });

  it("refuses a block's traces past 128 MiB in all, though each transaction's is within its own budget", async () => {
    // Init code that grows memory to 1.5 KiB, then loops 1,024 times: with enableMemory, about 24 MB
    // of struct logs a transaction, six of them in the block.
    const loop = '0x600161' + '05e052' + '610400' + '5b' + '600190' + '03' + '80' + '6009' + '57' + '00';
    const raws = await Promise.all(
      Array.from({ length: 6 }, (_, nonce) => sign(devWallet(9), { nonce, data: loop, gasLimit: 200_000n })),
    );
    const loops = await inOneBlock(node, raws);
    const alone = (await rpc(node.url, 'debug_traceTransaction', [loops.hashes[5], { enableMemory: true }])).result;
    expect(alone.structLogs).to.have.length(4 + 1024 * 7 + 1);
    expect(
      (await rpc(node.url, 'debug_traceBlockByNumber', [loops.height, { enableMemory: true }])).error,
    ).to.deep.equal({
      code: -32000,
      message: "trace too large: the block's traces pass 128 MiB; trace its transactions one at a time",
    });
    // Without memory, the same block's traces fit.
    const narrowed = (await rpc(node.url, 'debug_traceBlockByNumber', [loops.height, {}])).result as {
      txHash: string;
    }[];
    expect(narrowed.map((entry) => entry.txHash)).to.deep.equal(loops.hashes);
  });

  it('refuses blocks beyond max_trace_lookback_blocks', async () => {
    while (Number((await rpc(node.url, 'eth_blockNumber')).result) <= Number(block.height) + 20) {
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const { error } = await rpc(node.url, 'debug_traceTransaction', [block.hashes[0], NOOP]);
    expect(error).to.deep.equal({
      code: -32000,
      message: `block number ${Number(block.height)} is beyond max lookback of 20`,
    });
  }).timeout(60_000);
});

describe('debug-trace: max_concurrent_trace_calls', () => {
  let node: TestNode;
  let height: string;
  before(async () => {
    node = await startTestNode({
      plugins: ['eth-query', 'eth-send', 'debug-trace'],
      config: { consensus: { block_time: 300 }, evm: { max_concurrent_trace_calls: 1 } },
    });
    ({ height } = await transfersInOneBlock(node, 2));
  });
  after(() => node.stop());

  it('refuses a trace beyond the limit at once with -32005, and serves it once the running one ends', async () => {
    // A batch starts its calls together: the second finds the first still running.
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'debug_traceBlockByNumber', params: [height, NOOP] });
    const answers = JSON.parse((await post(node.url, JSON.stringify([call(1), call(2)]))).text);
    expect(answers[0].result).to.have.length(2);
    expect(answers[1].error).to.deep.equal({
      code: -32005,
      message: 'trace request rejected due to concurrency limit: server busy',
    });
    expect((await rpc(node.url, 'debug_traceBlockByNumber', [height, NOOP])).result).to.have.length(2);
  });

  it('stops a trace whose client closed its connection, and frees its place at once', async () => {
    // JUMPDEST PUSH1 0 JUMP until 50M gas runs out: millions of steps, many seconds with the struct logger.
    const loop = '0x00000000000000000000000000000000000000aa';
    const params = [
      { to: loop, gas: '0x2faf080' },
      'latest',
      { stateOverrides: { [loop]: { code: '0x5b600056' } }, limit: 1, timeout: '60s' },
    ];
    const client = new AbortController();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceCall', params });
    const running = fetch(node.url, {
      method: 'POST',
      body,
      signal: client.signal,
      headers: { 'content-type': 'application/json' },
    });
    await sleep(300);
    expect((await rpc(node.url, 'debug_traceBlockByNumber', [height, NOOP])).error).to.have.property('code', -32005);
    client.abort();
    await running.catch(() => undefined);
    await sleep(200);
    expect((await rpc(node.url, 'debug_traceBlockByNumber', [height, NOOP])).result).to.have.length(2);
  });
});

describe('debug-trace: room for what traces gather, in max_held_answer_bytes', () => {
  /** Init or call code that grows memory to 1.5 KiB, then loops 256 times: about 6.5 MB of struct logs with enableMemory. */
  const LOOP = '0x600161' + '05e052' + '610100' + '5b' + '600190' + '03' + '80' + '6009' + '57' + '00';
  /** Four set-up steps, seven a turn of the loop, and the STOP. */
  const LOOP_STEPS = 4 + 256 * 7 + 1;
  const WITH_MEMORY = { enableMemory: true };
  const BUSY = { code: -32005, message: 'server busy: too many large answers held for clients' };
  const LOOPING = '0x00000000000000000000000000000000000000aa';
  const loopCall = (id: number, config: object = {}) => ({
    jsonrpc: '2.0',
    id,
    method: 'debug_traceCall',
    params: [{ to: LOOPING }, 'latest', { ...WITH_MEMORY, ...config, stateOverrides: { [LOOPING]: { code: LOOP } } }],
  });
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      plugins: ['eth-query', 'eth-send', 'debug-trace'],
      config: { consensus: { block_time: 300 }, evm: { max_held_answer_bytes: 8 * 1024 * 1024 } },
    });
  });
  after(() => node.stop());

  it("refuses a block trace whose struct logs outgrow the room with -32005, and serves each transaction's alone", async () => {
    const raws = await Promise.all(
      Array.from({ length: 2 }, (_, nonce) => sign(devWallet(3), { nonce, data: LOOP, gasLimit: 200_000n })),
    );
    const loops = await inOneBlock(node, raws);
    // Each transaction's logs fit the room; the block's two do not.
    expect((await rpc(node.url, 'debug_traceBlockByNumber', [loops.height, WITH_MEMORY])).error).to.deep.equal(BUSY);
    for (const hash of [...loops.hashes, ...loops.hashes]) {
      const alone = (await rpc(node.url, 'debug_traceTransaction', [hash, WITH_MEMORY])).result;
      expect(alone.structLogs).to.have.length(LOOP_STEPS);
    }
    // Without memory the block's logs are small.
    const narrowed = (await rpc(node.url, 'debug_traceBlockByNumber', [loops.height, {}])).result as unknown[];
    expect(narrowed).to.have.length(2);
  });

  it('lets traces that grow together go on as the room allows, refuses the others, and gives all room back', async () => {
    const alone = (await rpc(node.url, 'debug_traceCall', loopCall(1).params)).result;
    expect(alone.structLogs).to.have.length(LOOP_STEPS);
    // Three at once from one client (within its share of max_concurrent_trace_calls): about 20 MB in all.
    const answers = await Promise.all(
      [1, 2, 3].map(async (id) => JSON.parse((await post(node.url, JSON.stringify(loopCall(id)))).text)),
    );
    const served = answers.filter((answer) => answer.result !== undefined);
    const refused = answers.filter((answer) => answer.error !== undefined);
    expect(served.length).to.be.within(1, 2);
    for (const answer of served) expect(answer.result).to.deep.equal(alone);
    for (const answer of refused) expect(answer.error).to.deep.equal(BUSY);
    // The refused traces and the served ones gave their room back.
    for (let call = 0; call < 2; call++) {
      expect((await rpc(node.url, 'debug_traceCall', loopCall(1).params)).result).to.deep.equal(alone);
    }
  });

  it('counts each struct logger a muxTracer runs, and gives their results as they are', async () => {
    const alone = (await rpc(node.url, 'debug_traceCall', loopCall(1).params)).result;
    const once = { tracer: 'muxTracer', tracerConfig: { structLogger: {} } };
    expect((await rpc(node.url, 'debug_traceCall', loopCall(1, once).params)).result).to.deep.equal({
      structLogger: alone,
    });
    // Two struct loggers over one execution: about 13 MB together.
    const twice = { tracer: 'muxTracer', tracerConfig: { structLogger: {}, muxTracer: { structLogger: {} } } };
    expect((await rpc(node.url, 'debug_traceCall', loopCall(1, twice).params)).error).to.deep.equal(BUSY);
  });
});

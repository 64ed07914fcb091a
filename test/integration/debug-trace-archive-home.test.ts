import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getCreateAddress, hexlify, Interface } from 'ethers';
import { pointerAddressOf } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { devWallet, lower, sign, submit, waitForReceipt } from '../support/chain-kit.js';
import { nativeSigner, registerPointer } from '../support/native-kit.js';
import { post, rpc } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';

const tracing = compileContract('CallTracing');
const tracingAbi = new Interface(tracing.abi);
const erc20 = new Interface(['function transfer(address to, uint256 value) returns (bool)']);
const RECIPIENT = '0x00000000000000000000000000000000000000dd';
const BANK = '0x0000000000000000000000000000000000001001';
/** Debug lines tell which traces were baked and which answers came from the trace cache. */
const DEBUG_LOGS = { logging: { level: 'debug' } };
/** callTracer run live: a `timeout` makes the config other than the cache's empty one. */
const LIVE_CALL_TRACER = { tracer: 'callTracer', timeout: '5s' };
const CACHED_CALL_TRACER = { tracer: 'callTracer' };

/** A callTracer frame, as JSON. */
type Frame = { type: string; to?: string; error?: string; calls?: Frame[] };

/** The raw text of a JSON-RPC answer, which must be the same byte for byte after the restart. */
async function answerText(node: TestNode, method: string, params: unknown[]): Promise<string> {
  const { text } = await post(node.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  return text;
}

const cacheAnswers = (node: TestNode): number =>
  node.logs.filter((line) => String(line.msg).endsWith('served from the trace cache')).length;

const bakedHeights = (node: TestNode): number[] =>
  node.logs.filter((line) => line.msg === 'baked block traces').map((line) => line.height as number);

/**
 * Issue 15 point 6: a node started with only `eth-query` and `debug-trace` on the home a full node
 * left serves every earlier transaction's trace, from the trace cache and live, as the full node did.
 */
describe('debug-trace alone with eth-query on an existing archive home', function () {
  this.timeout(120_000);
  let home: string;
  let node: TestNode | undefined;
  /** Every EVM transaction the full node mined, in order. */
  const hashes: string[] = [];
  /** The full node's answers, by config, for each transaction (and the struct log of one). */
  const answers = { cached: [] as string[], live: [] as string[], structLog: '' };
  const sender = devWallet(2);
  /** CallTracing, the contract the full node's first transaction creates. */
  const at = lower(getCreateAddress({ from: sender.address, nonce: 0 }));

  async function mined(raw: string): Promise<number> {
    const hash = await submit(node!.url, raw);
    hashes.push(hash);
    return Number((await waitForReceipt(node!.url, hash)).blockNumber);
  }

  before(async () => {
    home = mkdtempSync(path.join(tmpdir(), 'evmnode-archive-home-'));
    node = await startTestNode({ home, config: DEBUG_LOGS });
    const heights = [
      await mined(await sign(sender, { nonce: 0, data: tracing.bytecode, gasLimit: 3_000_000n })),
      await mined(await sign(sender, { nonce: 1, to: RECIPIENT, value: 1000n })),
      await mined(
        await sign(sender, {
          nonce: 2,
          to: at,
          data: tracingAbi.encodeFunctionData('nested'),
          value: 5n,
          gasLimit: 500_000n,
        }),
      ),
      await mined(
        await sign(sender, {
          nonce: 3,
          to: at,
          data: tracingAbi.encodeFunctionData('failWith', ['no']),
          gasLimit: 100_000n,
        }),
      ),
    ];
    // A native transaction, and an EVM transfer through the ERC20 pointer it registers (a call into the bank).
    const registered = await registerPointer(node.node.native, await nativeSigner(devWallet(9).privateKey), 'utest');
    expect(registered.code, registered.log).to.equal(0);
    const transfer = erc20.encodeFunctionData('transfer', [RECIPIENT, 5n]);
    heights.push(
      await mined(
        await sign(devWallet(0), {
          nonce: 0,
          to: hexlify(pointerAddressOf('utest')),
          data: transfer,
          gasLimit: 200_000n,
        }),
      ),
    );

    const deadline = Date.now() + 20_000;
    while (!heights.every((height) => bakedHeights(node!).includes(height))) {
      expect(Date.now(), 'the full node bakes every block').to.be.below(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const hash of hashes) {
      answers.cached.push(await answerText(node, 'debug_traceTransaction', [hash, CACHED_CALL_TRACER]));
      answers.live.push(await answerText(node, 'debug_traceTransaction', [hash, LIVE_CALL_TRACER]));
    }
    answers.structLog = await answerText(node, 'debug_traceTransaction', [hashes[2]]);
    await node.stop();
    node = await startTestNode({ home, config: DEBUG_LOGS, plugins: ['eth-query', 'debug-trace'] });
  });

  after(async () => {
    await node?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("serves every earlier transaction's callTracer trace from the trace cache as the full node did", async () => {
    // What the full node traced: a creation (of CallTracing, which makes its CallTarget), a transfer,
    // nested calls, a revert, a pointer's call into the bank.
    const traces = answers.cached.map((text) => (JSON.parse(text) as { result: Frame }).result);
    const target = lower(getCreateAddress({ from: at, nonce: 1 }));
    expect(traces.map((trace) => [trace.type, trace.error, trace.calls?.map((call) => call.to)])).to.deep.equal([
      ['CREATE', undefined, [target]],
      ['CALL', undefined, undefined],
      ['CALL', undefined, [target, target, target, target]],
      ['CALL', 'execution reverted', undefined],
      ['CALL', undefined, [BANK]],
    ]);
    for (const [index, hash] of hashes.entries()) {
      expect(await answerText(node!, 'debug_traceTransaction', [hash, CACHED_CALL_TRACER]), hash).to.equal(
        answers.cached[index],
      );
    }
    expect(cacheAnswers(node!)).to.equal(hashes.length);
  });

  it('traces every earlier transaction live as the full node did', async () => {
    const before = cacheAnswers(node!);
    for (const [index, hash] of hashes.entries()) {
      expect(await answerText(node!, 'debug_traceTransaction', [hash, LIVE_CALL_TRACER]), hash).to.equal(
        answers.live[index],
      );
    }
    expect(cacheAnswers(node!)).to.equal(before);
    // Live and cached answers agree.
    expect(answers.live).to.deep.equal(answers.cached);
  });

  it('gives the struct logger the same steps as the full node', async () => {
    const text = await answerText(node!, 'debug_traceTransaction', [hashes[2]]);
    expect(JSON.parse(text).result.structLogs.length).to.be.greaterThan(100);
    expect(text).to.equal(answers.structLog);
  });

  it('does not answer the methods of the plugins it did not load', async () => {
    const answer = await rpc(node!.url, 'eth_sendRawTransaction', [
      await sign(devWallet(3), { nonce: 0, to: RECIPIENT }),
    ]);
    expect(answer.error).to.deep.equal({
      code: -32601,
      message: 'the method eth_sendRawTransaction does not exist/is not available',
    });
  });
});

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getCreateAddress, Interface } from 'ethers';
import { Database } from '@evmnode/core';
import { startTestNode, type TestNode, type TestNodeOptions } from '@evmnode/core/testing';
import {
  devWallet,
  ETHER,
  lower,
  nextBlocks,
  sign,
  submit,
  submitTogether,
  untilHeight,
  waitForReceipt,
} from '../support/chain-kit.js';
import { post } from '../support/rpc-client.js';
import { compileContract } from '../support/solidity.js';

const emitter = compileContract('LogEmitter');
const emitterAbi = new Interface(emitter.abi);
const RECIPIENT = '0x00000000000000000000000000000000000000cc';
const BAKED_TRACERS = ['callTracer', 'flatCallTracer', 'prestateTracer'] as const;
/** Debug lines show which traces were baked and which answers came from the cache. */
const DEBUG_LOGS = { logging: { level: 'debug' } };
const BAKING_OFF = { plugins: { 'debug-trace': { trace_bake_enabled: false } } };

/** The raw text of a JSON-RPC answer: cached answers must equal live ones byte for byte. */
async function answerText(node: TestNode, method: string, params: unknown[]): Promise<string> {
  const { text } = await post(node.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  return text;
}

/** Heights whose traces the node baked, in the order it baked them. */
function bakedHeights(node: TestNode): number[] {
  return node.logs.filter((line) => line.msg === 'baked block traces').map((line) => line.height as number);
}

/** How many answers the node gave from its trace cache so far. */
function cacheAnswers(node: TestNode): number {
  return node.logs.filter((line) => String(line.msg).endsWith('served from the trace cache')).length;
}

async function untilBaked(node: TestNode, height: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!bakedHeights(node).includes(height)) {
    if (Date.now() > deadline) throw new Error(`block ${height} was not baked`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Transactions' receipts, checked to be in one block; that block's height. */
async function oneBlockOf(node: TestNode, hashes: readonly string[]): Promise<number> {
  const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(node.url, hash)));
  const heights = new Set(receipts.map((receipt) => Number(receipt.blockNumber)));
  expect(heights.size, 'all in one block').to.equal(1);
  return [...heights][0]!;
}

/** Config that runs `tracer` exactly as the cache's empty config does, but must be traced live. */
const liveConfig = (tracer: string) => ({ tracer, timeout: '10s' });

describe('debug-trace: the trace cache', function () {
  this.timeout(120_000);

  describe('on a node that bakes', () => {
    let node: TestNode;
    /** A block with a transfer, a creation, nested calls, a revert and an out-of-gas failure. */
    let mixed: { height: number; hashes: Record<string, string> };

    before(async () => {
      node = await startTestNode({ config: { consensus: { block_time: 300 }, ...DEBUG_LOGS } });
      const deployer = devWallet(1);
      const deployed = await submitTogether(node.url, [
        await sign(deployer, { nonce: 0, data: emitter.bytecode, gasLimit: 1_000_000n }),
        await sign(deployer, { nonce: 1, data: emitter.bytecode, gasLimit: 1_000_000n }),
      ]);
      for (const hash of deployed) expect((await waitForReceipt(node.url, hash)).status).to.equal('0x1');
      const emitterA = lower(getCreateAddress({ from: deployer.address, nonce: 0 }));
      const emitterB = lower(getCreateAddress({ from: deployer.address, nonce: 1 }));
      const raws = {
        transfer: await sign(devWallet(2), { nonce: 0, to: RECIPIENT, value: ETHER }),
        deploy: await sign(devWallet(3), { nonce: 0, data: emitter.bytecode, gasLimit: 1_000_000n }),
        nested: await sign(devWallet(4), {
          nonce: 0,
          to: emitterA,
          data: emitterAbi.encodeFunctionData('notesWith', [emitterB, 7n, 2n, 3n]),
          gasLimit: 300_000n,
        }),
        reverting: await sign(devWallet(5), { nonce: 0, to: emitterA, data: '0xdeadbeef', gasLimit: 100_000n }),
        outOfGas: await sign(devWallet(6), {
          nonce: 0,
          to: emitterB,
          data: emitterAbi.encodeFunctionData('notes', [1n, 50n]),
          gasLimit: 40_000n,
        }),
      };
      // Sent at once just after a block, so that one block takes them all.
      await nextBlocks(node.node.chain);
      const entries = await Promise.all(
        Object.entries(raws).map(async ([name, raw]) => [name, await submit(node.url, raw)] as const),
      );
      const hashes = Object.fromEntries(entries);
      mixed = { height: await oneBlockOf(node, Object.values(hashes)), hashes };
      const statuses = await Promise.all(
        Object.values(hashes).map(async (hash) => (await waitForReceipt(node.url, hash)).status),
      );
      expect(statuses).to.deep.equal(['0x1', '0x1', '0x1', '0x0', '0x0']);
      await untilBaked(node, mixed.height);
    });
    after(() => node?.stop());

    for (const tracer of BAKED_TRACERS) {
      it(`serves ${tracer} of each transaction from the cache, byte for byte the live trace`, async () => {
        for (const hash of Object.values(mixed.hashes)) {
          const served = cacheAnswers(node);
          const cached = await answerText(node, 'debug_traceTransaction', [hash, { tracer }]);
          expect(cacheAnswers(node), 'answered from the cache').to.equal(served + 1);
          const withEmptyConfig = await answerText(node, 'debug_traceTransaction', [
            hash,
            { tracer, tracerConfig: {} },
          ]);
          expect(cacheAnswers(node), 'an empty tracerConfig is the cache too').to.equal(served + 2);
          const live = await answerText(node, 'debug_traceTransaction', [hash, liveConfig(tracer)]);
          expect(cacheAnswers(node), 'any other option is traced live').to.equal(served + 2);
          expect(JSON.parse(live).result, hash).to.not.equal(undefined);
          expect(cached, hash).to.equal(live);
          expect(withEmptyConfig, hash).to.equal(live);
        }
      });

      it(`serves ${tracer} of the whole block from the cache, byte for byte the live trace`, async () => {
        const block = await node.node.chain.blockAt(mixed.height);
        for (const [method, ref] of [
          ['debug_traceBlockByNumber', `0x${mixed.height.toString(16)}`],
          ['debug_traceBlockByHash', block!.hash],
        ] as const) {
          const served = cacheAnswers(node);
          const cached = await answerText(node, method, [ref, { tracer }]);
          expect(cacheAnswers(node), 'answered from the cache').to.equal(served + 1);
          const live = await answerText(node, method, [ref, liveConfig(tracer)]);
          expect(JSON.parse(live).result).to.have.length(5);
          expect(cached).to.equal(live);
        }
      });
    }

    it('traces live what it does not hold: other tracers and options, and blocks without transactions', async () => {
      const hash = mixed.hashes.nested!;
      const served = cacheAnswers(node);
      await answerText(node, 'debug_traceTransaction', [
        hash,
        { tracer: 'callTracer', tracerConfig: { withLog: true } },
      ]);
      await answerText(node, 'debug_traceTransaction', [
        hash,
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ]);
      await answerText(node, 'debug_traceTransaction', [hash, { tracer: 'noopTracer' }]);
      const empty = mixed.height + 1;
      // A slow machine may not have made it yet.
      await untilHeight(node.node.chain, empty);
      const emptyBlock = await answerText(node, 'debug_traceBlockByNumber', [
        `0x${empty.toString(16)}`,
        { tracer: 'callTracer' },
      ]);
      expect(JSON.parse(emptyBlock).result).to.deep.equal([]);
      expect(cacheAnswers(node)).to.equal(served);
    });
  });

  describe('while the node is busy', () => {
    let node: TestNode;
    before(async () => {
      node = await startTestNode({ config: { consensus: { block_time: 100 }, ...DEBUG_LOGS } });
    });
    after(() => node.stop());

    it("waits to bake a block while the node's thread is mostly busy, then bakes it", async () => {
      // The test shares the node's thread: busy for 40 ms of every 50 (80%) until released.
      let busy = true;
      const hogging = (async () => {
        while (busy) {
          const until = performance.now() + 40;
          while (performance.now() < until);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      try {
        const hash = await submit(node.url, await sign(devWallet(0), { nonce: 0, to: RECIPIENT, value: 1n }));
        const height = await oneBlockOf(node, [hash]);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(bakedHeights(node)).to.not.include(height);
        busy = false;
        await hogging;
        await untilBaked(node, height);
      } finally {
        busy = false;
      }
    });
  });

  describe('after a restart', () => {
    let home: string;
    let node: TestNode | undefined;
    const restart = async (options: TestNodeOptions) => {
      await node?.stop();
      node = await startTestNode({ home, ...options });
      return node;
    };

    before(() => {
      home = mkdtempSync(path.join(tmpdir(), 'evmnode-trace-cache-'));
    });
    after(async () => {
      await node?.stop();
      rmSync(home, { recursive: true, force: true });
    });

    it('bakes nothing with trace_bake_enabled = false, then bakes the missed blocks oldest first once it is on', async () => {
      const config = { consensus: { block_time: 300 }, ...DEBUG_LOGS };
      const off = await restart({ config: { ...config, ...BAKING_OFF } });
      const heights: number[] = [];
      const hashes: string[] = [];
      for (const nonce of [0, 1]) {
        const hash = await submit(off.url, await sign(devWallet(0), { nonce, to: RECIPIENT, value: 1n }));
        heights.push(await oneBlockOf(off, [hash]));
        hashes.push(hash);
      }
      await nextBlocks(off.node.chain, 2);
      expect(bakedHeights(off)).to.deep.equal([]);
      await answerText(off, 'debug_traceTransaction', [hashes[0], { tracer: 'callTracer' }]);
      expect(cacheAnswers(off), 'nothing in the cache').to.equal(0);

      const on = await restart({ config });
      for (const height of heights) await untilBaked(on, height);
      const baked = bakedHeights(on);
      expect(baked.slice(0, 2), 'the missed blocks first, oldest first').to.deep.equal(heights);
      for (const hash of hashes) {
        const cached = await answerText(on, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }]);
        expect(cached).to.equal(await answerText(on, 'debug_traceTransaction', [hash, liveConfig('callTracer')]));
      }
      expect(cacheAnswers(on)).to.equal(2);
    });

    it("stores a contract's code once for the prestateTracer results that hold it, and serves them whole", async () => {
      const on = await restart({ config: { consensus: { block_time: 300 }, ...DEBUG_LOGS } });
      const deployer = devWallet(1);
      const deployment = await submit(
        on.url,
        await sign(deployer, { nonce: 0, data: emitter.bytecode, gasLimit: 1_000_000n }),
      );
      expect((await waitForReceipt(on.url, deployment)).status).to.equal('0x1');
      const contract = lower(getCreateAddress({ from: deployer.address, nonce: 0 }));
      // One sender's consecutive nonces, so that one block holds the three calls.
      const caller = devWallet(2);
      const calls = await submitTogether(
        on.url,
        await Promise.all(
          [0, 1, 2].map(async (nonce) =>
            sign(caller, {
              nonce,
              to: contract,
              data: emitterAbi.encodeFunctionData('plain', [1n]),
              gasLimit: 100_000n,
            }),
          ),
        ),
      );
      await untilBaked(on, await oneBlockOf(on, calls));
      const { text } = await post(
        on.url,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getCode', params: [contract, 'latest'] }),
      );
      const code = JSON.parse(text).result as string;
      const served = cacheAnswers(on);
      for (const hash of calls) {
        const cached = await answerText(on, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer' }]);
        expect(JSON.parse(cached).result[contract].code).to.equal(code);
        expect(cached).to.equal(await answerText(on, 'debug_traceTransaction', [hash, liveConfig('prestateTracer')]));
      }
      expect(cacheAnswers(on), 'answered from the cache, the code put back').to.equal(served + 3);
      await on.stop();
      node = undefined;
      // The code's hex text is in the deployment's callTracer output and flatCallTracer result,
      // and in one entry that the three calls' prestateTracer results refer to.
      const database = await Database.openInHome(home);
      try {
        let holding = 0;
        for await (const [, value] of database.store.iterate()) {
          if (Buffer.from(value).toString('latin1').includes(code)) holding++;
        }
        expect(holding).to.equal(3);
      } finally {
        await database.close();
      }
    });
  });
});

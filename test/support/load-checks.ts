import { PerformanceObserver } from 'node:perf_hooks';
import { expect } from 'chai';
import type { TestNode } from '@evmnode/core/testing';
import { nextBlocks } from './chain-kit.js';
import { rpc } from './rpc-client.js';

const MIB = 1024 * 1024;

/**
 * Runs `work` while sampling this process's RSS (the test node runs in it) every 20 ms; resolves
 * to its result and the largest growth over the RSS before it, in MiB.
 */
export async function withPeakRss<T>(work: () => Promise<T>): Promise<{ result: T; peakGrowthMib: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, peakGrowthMib: (peak - before) / MIB };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Runs `work` and resolves to its result and the heap it leaves held, in MiB: the heap used after
 * a full collection once it is done, over that before it. Unlike a peak of RSS, garbage not yet
 * collected does not count. Needs node's `--expose-gc`, which the tests run with.
 */
export async function withRetainedHeap<T>(work: () => Promise<T>): Promise<{ result: T; retainedMib: number }> {
  globalThis.gc!();
  const before = process.memoryUsage().heapUsed;
  const result = await work();
  globalThis.gc!();
  return { result, retainedMib: (process.memoryUsage().heapUsed - before) / MIB };
}

/** `eth_chainId` answers within a second and the node goes on producing blocks. */
export async function expectResponsive(node: TestNode): Promise<void> {
  const blocks = nextBlocks(node.node.chain, 2);
  const started = performance.now();
  const answer = await rpc(node.url, 'eth_chainId');
  expect(performance.now() - started, 'eth_chainId latency (ms)').to.be.below(1000);
  expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 1, result: '0xae3f2' });
  const [first, second] = await blocks;
  expect(second!.block.height).to.equal(first!.block.height + 1);
}

/**
 * Times the gaps between the event loop's turns (a 1 ms timer's ticks) until `stop()`, less the
 * garbage collections within each gap: the node runs in the test process, whose heap holds what
 * every earlier test file left, so a full collection of it is no turn of the node's (one took 59
 * and 95 ms after 70 test files, where the node alone collects in a few).
 */
export function loopGaps(): { stop(): number } {
  const collections: { start: number; end: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      collections.push({ start: entry.startTime, end: entry.startTime + entry.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const ticks = [performance.now()];
  const timer = setInterval(() => ticks.push(performance.now()), 1);
  return {
    stop() {
      clearInterval(timer);
      for (const entry of observer.takeRecords()) {
        collections.push({ start: entry.startTime, end: entry.startTime + entry.duration });
      }
      observer.disconnect();
      let longest = 0;
      for (let index = 1; index < ticks.length; index++) {
        const [from, to] = [ticks[index - 1]!, ticks[index]!];
        const collecting = collections.reduce(
          (sum, { start, end }) => sum + Math.max(0, Math.min(end, to) - Math.max(start, from)),
          0,
        );
        longest = Math.max(longest, to - from - collecting);
      }
      return longest;
    },
  };
}

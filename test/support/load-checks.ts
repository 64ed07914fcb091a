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

/**
 * What the chain bench reports of a phase's blocks: how close ingestion came to the capacity its
 * block gas limit and block time allow (decisions.md D4), and the cadence of the blocks meanwhile.
 */
import type { BlockLine } from './chain-servers.js';
import type { Ingestion } from './chain-workload.js';
import { percentile } from './load-result.js';

/** The most transactions of `gasPerTx` gas per second that blocks of `gasLimit` every `blockSeconds` hold. */
export function ceilingTps(gasLimit: bigint, gasPerTx: number, blockSeconds: number): number {
  return Math.floor(Number(gasLimit) / gasPerTx) / blockSeconds;
}

export const gasPerTx = (run: Ingestion): number =>
  run.receipts.reduce((sum, receipt) => sum + Number(receipt.gasUsed), 0) / run.receipts.length;

export const tps = (run: Ingestion): number => run.transactions / run.totalSeconds;

/** The phase's blocks: every committed block from the one holding its first receipt to the one holding its last. */
export function phaseBlocks(run: Ingestion, lines: readonly BlockLine[]): BlockLine[] {
  const heights = run.receipts.map((receipt) => Number(receipt.blockNumber));
  const [first, last] = [Math.min(...heights), Math.max(...heights)];
  return lines.filter(({ height }) => height >= first && height <= last);
}

export interface Cadence {
  readonly blocksPerSecond: number;
  readonly intervalP50Ms: number;
  readonly intervalP99Ms: number;
  /** The longest interval and the block that ended it: where a missed p99 comes from. */
  readonly longest: { readonly intervalMs: number; readonly block: BlockLine };
}

/** Blocks per second and the intervals between consecutive blocks (commit to commit); undefined below two blocks. */
export function cadenceOf(blocks: readonly BlockLine[]): Cadence | undefined {
  if (blocks.length < 2) return undefined;
  const intervals = blocks.slice(1).map((block, index) => block.time - blocks[index]!.time);
  const sorted = [...intervals].sort((a, b) => a - b);
  const spanSeconds = (blocks.at(-1)!.time - blocks[0]!.time) / 1000;
  const longestAt = intervals.indexOf(sorted.at(-1)!);
  return {
    blocksPerSecond: intervals.length / spanSeconds,
    intervalP50Ms: percentile(sorted, 50),
    intervalP99Ms: percentile(sorted, 99),
    longest: { intervalMs: intervals[longestAt]!, block: blocks[longestAt + 1]! },
  };
}

/**
 * `npm run bench [-- --duration <s>]`: eth_chainId throughput and latency of evmnode against anvil,
 * over keep-alive HTTP and over WebSocket. Servers run as child processes so the load generator
 * never shares their event loop.
 */
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chainIdCall } from './chain-id-call.js';
import { durationArg } from './duration-arg.js';
import { runHttpLoad } from './http-load.js';
import type { LoadResult } from './load-result.js';
import { anvilBinary, startAnvil, startEvmnode, type Target } from './targets.js';
import { formatTable } from './text-table.js';
import { runWsLoad } from './ws-load.js';

const IN_FLIGHT = 32;
const WS_CONNECTIONS = 4;
/** Lets JIT, connection set-up and allocator settle before measuring; not reported. */
const WARMUP_SECONDS = 2;

interface Row extends LoadResult {
  readonly target: string;
  readonly transport: 'http' | 'ws';
}

async function main(): Promise<void> {
  const seconds = durationArg(10);
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  console.log(`machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}`);
  console.log(`load: eth_chainId, ${IN_FLIGHT} in flight, ${WARMUP_SECONDS} s warm-up + ${seconds} s measured per row`);

  const rows: Row[] = [];
  rows.push(...(await measure(await startEvmnode(repoRoot), seconds)));
  const anvil = await startPeer();
  if (anvil !== undefined) rows.push(...(await measure(anvil, seconds)));

  printTable(rows);
  for (const transport of ['http', 'ws'] as const) {
    const ours = rows.find((row) => row.target === 'evmnode' && row.transport === transport);
    const peer = rows.find((row) => row.target === 'anvil' && row.transport === transport);
    if (ours && peer)
      console.log(
        `evmnode/anvil throughput (${transport}): ${(ours.requestsPerSecond / peer.requestsPerSecond).toFixed(2)}`,
      );
  }
  if (rows.some((row) => row.errors > 0)) process.exitCode = 1;
}

/** Runs both transports against `target`, then stops it whatever happened. */
async function measure(target: Target, seconds: number): Promise<Row[]> {
  try {
    const run = async (transport: Row['transport'], duration: number): Promise<LoadResult> =>
      transport === 'http'
        ? runHttpLoad(target.httpUrl, chainIdCall(target.chainId), IN_FLIGHT, duration)
        : runWsLoad(target.wsUrl, target.chainId, WS_CONNECTIONS, IN_FLIGHT, duration);
    const rows: Row[] = [];
    for (const transport of ['http', 'ws'] as const) {
      console.error(`${target.name} ${transport}: warming up, then measuring ${seconds} s`);
      await run(transport, WARMUP_SECONDS);
      rows.push({ target: target.name, transport, ...(await run(transport, seconds)) });
    }
    return rows;
  } finally {
    await target.stop();
  }
}

/** The comparison is optional: a missing or broken anvil costs its rows, not evmnode's figures. */
async function startPeer(): Promise<Target | undefined> {
  try {
    return await startAnvil(anvilBinary());
  } catch (error) {
    console.log(`peer skipped: anvil unavailable (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}

function printTable(rows: readonly Row[]): void {
  const header = ['target', 'transport', 'req/s', 'p50 ms', 'p99 ms', 'errors'];
  const cells = rows.map((row) => [
    row.target,
    row.transport,
    row.requestsPerSecond.toFixed(0),
    row.p50Ms.toFixed(3),
    row.p99Ms.toFixed(3),
    String(row.errors),
  ]);
  console.log();
  for (const line of formatTable(header, cells, 'llrrrr')) console.log(line);
  console.log();
}

await main();

/**
 * `npm run bench:trace`: latency of `debug_traceTransaction` (an ERC20 transfer) and
 * `debug_traceBlockByNumber` (the largest block of 200 ERC20 transfers) with `callTracer`, on
 * evmnode from its trace cache and traced live, beside anvil in the same run; and evmnode's commit
 * time of those blocks with the trace cache on and off. Each server is a child process with 400 ms
 * blocks; calls are sent one at a time over HTTP, after a warm-up.
 */
import { availableParallelism, cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { rpc, type Receipt } from './chain-rpc.js';
import { startAnvil, startEvmnode, type ChainServer } from './chain-servers.js';
import { deployToken, devSenders, ingest, signTokenTransfers, SENDER_COUNT } from './chain-workload.js';
import { anvilBinary } from './targets.js';
import { formatTable } from './text-table.js';

const TRANSFERS = 200;
const IN_FLIGHT = 32;
const WARMUP_CALLS = 20;
const MEASURED_CALLS = 200;
const WORKLOAD_MS = 120_000;
/** Ample for the trace cache to bake the workload's blocks after they commit. */
const BAKE_WAIT_MS = 5_000;
const ANVIL_CHAIN_ID = 31337n;
const CACHED = { tracer: 'callTracer' };
/** Any option but the tracer's name makes evmnode trace live; geth's default timeout changes nothing else. */
const LIVE = { tracer: 'callTracer', timeout: '5s' };

/** An ERC20 transfer and the block holding the most of the workload's transfers. */
interface Workload {
  readonly transfer: string;
  readonly block: string;
  readonly blockTransactions: number;
}

async function prepare(server: ChainServer): Promise<Workload> {
  const deadline = performance.now() + WORKLOAD_MS;
  const senders = await devSenders(server.url);
  const token = await deployToken(server.url, server.chainId, senders, deadline);
  const transfers = await signTokenTransfers(senders, server.chainId, token, TRANSFERS / SENDER_COUNT);
  const { receipts } = await ingest(server.url, transfers, IN_FLIGHT, deadline);
  const byBlock = new Map<string, Receipt[]>();
  for (const receipt of receipts)
    byBlock.set(receipt.blockNumber, [...(byBlock.get(receipt.blockNumber) ?? []), receipt]);
  const [block, largest] = [...byBlock].sort(([, a], [, b]) => b.length - a.length)[0]!;
  return { transfer: largest[0]!.transactionHash, block, blockTransactions: largest.length };
}

/** Median and 99th percentile of `MEASURED_CALLS` sequential calls, in ms. */
async function latency(server: ChainServer, method: string, params: readonly unknown[]): Promise<string> {
  for (let call = 0; call < WARMUP_CALLS; call++) await rpc(server.url, method, params);
  const times: number[] = [];
  for (let call = 0; call < MEASURED_CALLS; call++) {
    const started = performance.now();
    await rpc(server.url, method, params);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (share: number) => times[Math.min(times.length - 1, Math.floor(share * times.length))]!.toFixed(2);
  return `${at(0.5)} / ${at(0.99)}`;
}

/** Median commit time (ms) of evmnode's blocks that held transactions. */
function commitMs(server: ChainServer): string {
  const busy = server.blocks.filter((block) => block.transactions > 0).map((block) => block.durationMs);
  busy.sort((a, b) => a - b);
  return busy.length === 0 ? '-' : busy[Math.floor(busy.length / 2)]!.toFixed(1);
}

async function main(): Promise<void> {
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  console.log(`machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}`);
  console.log(`latency: ${MEASURED_CALLS} sequential calls after ${WARMUP_CALLS} warm-up, p50 / p99 ms`);
  const rows: string[][] = [];

  const unbaked = await startEvmnode(repoRoot, '400ms', ['--plugins.debug-trace.trace_bake_enabled', 'false']);
  try {
    await prepare(unbaked);
  } finally {
    await unbaked.stop();
  }
  const evmnode = await startEvmnode(repoRoot, '400ms');
  const anvil = await startAnvil(anvilBinary(), ANVIL_CHAIN_ID, 0.4);
  try {
    const [ours, theirs] = [await prepare(evmnode), await prepare(anvil)];
    await sleep(BAKE_WAIT_MS);
    const tx = (config: object) => ['debug_traceTransaction', [ours.transfer, config]] as const;
    const block = (config: object) => ['debug_traceBlockByNumber', [ours.block, config]] as const;
    const anvilTx = await latency(anvil, 'debug_traceTransaction', [theirs.transfer, CACHED]);
    const anvilBlock = await latency(anvil, 'debug_traceBlockByNumber', [theirs.block, CACHED]);
    rows.push(['traceTransaction ERC20 transfer, callTracer cached', await latency(evmnode, ...tx(CACHED)), anvilTx]);
    rows.push(['traceTransaction ERC20 transfer, callTracer live', await latency(evmnode, ...tx(LIVE)), anvilTx]);
    const blockName = `traceBlockByNumber ${ours.blockTransactions} txs (anvil ${theirs.blockTransactions}), callTracer`;
    rows.push([`${blockName} cached`, await latency(evmnode, ...block(CACHED)), anvilBlock]);
    rows.push([`${blockName} live`, await latency(evmnode, ...block(LIVE)), anvilBlock]);
    rows.push([
      'commit time of a block with transactions, cache on / off (median ms)',
      `${commitMs(evmnode)} / ${commitMs(unbaked)}`,
      '-',
    ]);
  } finally {
    await Promise.all([evmnode.stop(), anvil.stop()]);
  }
  for (const line of formatTable(['case', 'evmnode', 'anvil'], rows, 'lrr')) console.log(line);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

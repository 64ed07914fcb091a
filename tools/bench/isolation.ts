/**
 * `npm run bench:isolation`: how the node serves other calls and keeps its block cadence while an
 * `eth_call` computes for seconds inside a precompile (9.9M BLAKE2 rounds, a 260-pair pairing
 * check), against anvil in the same run. Both servers make 400 ms blocks; `eth_blockNumber` is
 * asked every 20 ms while the heavy call runs.
 */
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { blockNumber, rpc } from './chain-rpc.js';
import { startAnvil, startEvmnode, type ChainServer } from './chain-servers.js';
import { HEAVY_CALLS } from './heavy-precompile-calls.js';
import { percentile } from './load-result.js';
import { anvilBinary } from './targets.js';
import { formatTable } from './text-table.js';

const POLL_MS = 20;
const BLOCK_TIME_MS = 400;

interface Observation {
  readonly callMs: number;
  readonly outcome: string;
  readonly latencies: number[];
  readonly blocks: number;
}

async function observe(server: ChainServer, call: object): Promise<Observation> {
  const first = await blockNumber(server.url);
  const started = performance.now();
  let outcome = '';
  const heavy = rpc<string>(server.url, 'eth_call', [call, 'latest']).then(
    (result) => (outcome = `${result.length / 2 - 1} bytes`),
    (error: unknown) => (outcome = `error: ${(error as Error).message}`),
  );
  const latencies: number[] = [];
  let last = first;
  while (outcome === '') {
    const asked = performance.now();
    last = await blockNumber(server.url);
    latencies.push(performance.now() - asked);
    await sleep(POLL_MS);
  }
  await heavy;
  return { callMs: performance.now() - started, outcome, latencies, blocks: last - first };
}

async function main(): Promise<void> {
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const servers = [await startEvmnode(repoRoot, `${BLOCK_TIME_MS}ms`), await startAnvil(anvilBinary(), 31337n, 0.4)];
  const rows: string[][] = [];
  try {
    for (const { name, call } of HEAVY_CALLS) {
      for (const server of servers) {
        const seen = await observe(server, call);
        rows.push([
          name,
          server.name,
          seen.callMs.toFixed(0),
          seen.outcome,
          percentile(Float64Array.from(seen.latencies).sort(), 50).toFixed(1),
          Math.max(...seen.latencies).toFixed(1),
          `${seen.blocks} / ${Math.floor(seen.callMs / BLOCK_TIME_MS)}`,
        ]);
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
  const header = ['heavy eth_call', 'server', 'call ms', 'answer', 'blockNumber p50 ms', 'max ms', 'blocks / slots'];
  for (const line of formatTable(header, rows, 'llrlrrr')) console.log(line);
}

await main();

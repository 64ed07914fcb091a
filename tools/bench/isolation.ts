/**
 * `npm run bench:isolation`: how the node serves other calls and keeps its block cadence while a
 * request computes for long, against anvil in the same run: an `eth_call` that computes for
 * seconds inside a precompile (9.9M BLAKE2 rounds, a 260-pair pairing check), then the requests a
 * hostile client sends to hold the thread (`hostile-requests.ts`). Both servers make 400 ms
 * blocks; `eth_blockNumber` is asked every 20 ms while the request runs.
 */
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { blockNumber, post, rpc } from './chain-rpc.js';
import { startAnvil, startEvmnode, type ChainServer } from './chain-servers.js';
import { HEAVY_CALLS } from './heavy-precompile-calls.js';
import { HOSTILE_REQUESTS } from './hostile-requests.js';
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

/**
 * `eth_blockNumber` as another client than the heavy request's asks it, from another loopback
 * address: the node shares its thread by client, so the request's own client waits for the
 * request's turns, and the others only for what holds the thread.
 */
async function otherClientsBlockNumber(pool: Pool): Promise<number> {
  const answer = await pool.request({
    path: '/',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}',
  });
  return Number(((await answer.body.json()) as { result: string }).result);
}

/** What `send` answered, and `eth_blockNumber`'s answer times and the blocks made while it ran. */
async function observe(server: ChainServer, send: (url: string) => Promise<string>): Promise<Observation> {
  const probe = new Pool(new URL(server.url).origin, { connections: 1, connect: { localAddress: '127.0.0.2' } });
  const first = await blockNumber(server.url);
  const started = performance.now();
  let outcome = '';
  const heavy = send(server.url).then(
    (answer) => (outcome = answer),
    (error: unknown) => (outcome = `error: ${(error as Error).message}`),
  );
  const latencies: number[] = [];
  let last = first;
  while (outcome === '') {
    const asked = performance.now();
    last = await otherClientsBlockNumber(probe);
    latencies.push(performance.now() - asked);
    await sleep(POLL_MS);
  }
  await heavy;
  await probe.close();
  return { callMs: performance.now() - started, outcome, latencies, blocks: last - first };
}

/**
 * An answer in a few words: an error's code and the start of its message, or its size. A long
 * answer is not parsed: this thread also times `eth_blockNumber`.
 */
function summary(text: string): string {
  if (text.length > 100_000) {
    const code = /^\{"jsonrpc":"2\.0","id":\d+,"error":\{"code":(-?\d+)/.exec(text)?.[1];
    return code === undefined ? `${text.length} bytes` : `${code}, ${text.length} bytes`;
  }
  const answer = JSON.parse(text) as { result?: unknown; error?: { code: number; message: string } } | unknown[];
  if (Array.isArray(answer)) return `${answer.length} answers`;
  if (answer.error !== undefined) return `${answer.error.code} ${answer.error.message.slice(0, 40)}`;
  return `${text.length} bytes`;
}

async function main(): Promise<void> {
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const servers = [await startEvmnode(repoRoot, `${BLOCK_TIME_MS}ms`), await startAnvil(anvilBinary(), 31337n, 0.4)];
  const rows: string[][] = [];
  try {
    const requests = [
      ...HEAVY_CALLS.map(({ name, call }) => ({
        name,
        send: async (url: string) => `${(await rpc<string>(url, 'eth_call', [call, 'latest'])).length / 2 - 1} bytes`,
      })),
      ...HOSTILE_REQUESTS.map(({ name, body }) => ({
        name,
        send: async (url: string) => summary((await post(url, body)).text),
      })),
    ];
    for (const { name, send } of requests) {
      for (const server of servers) {
        const seen = await observe(server, send);
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
  const header = ['request', 'server', 'call ms', 'answer', 'blockNumber p50 ms', 'max ms', 'blocks / slots'];
  for (const line of formatTable(header, rows, 'llrlrrr')) console.log(line);
}

await main();

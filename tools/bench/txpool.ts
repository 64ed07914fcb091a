/**
 * `npm run bench:txpool`: latency of `txpool_content` with 5,000 pooled transactions (issue 16's
 * target: under 50 ms). The pool is filled with transfers from the ten dev accounts whose nonces
 * start at 1, so every one waits behind a nonce gap and stays pooled; `max_tx_pool_txs` and the
 * queue limits are raised to hold and list them all. Calls go one at a time over keep-alive HTTP;
 * a call's time runs from the request to the last byte of the answer. Then the pool's own time to
 * admit into a full pool of 5,000 senders (`full-pool-admission.ts`).
 */
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { rpc } from './chain-rpc.js';
import { startEvmnode } from './chain-servers.js';
import { devSenders, SENDER_COUNT, signEthTransfers } from './chain-workload.js';
import { benchFullPoolAdmission } from './full-pool-admission.js';

const POOLED = 5_000;
const PER_SENDER = POOLED / SENDER_COUNT;
const TARGET_MS = 50;
const WARMUP_CALLS = 10;
const MEASURED_CALLS = 100;
const SUBMITS_IN_FLIGHT = 32;
const OPTIONS = [
  ['--evm.max_tx_pool_txs', POOLED],
  ['--mempool.size', POOLED],
  ['--mempool.global_queue', POOLED],
  ['--mempool.account_queue', PER_SENDER],
].flatMap(([flag, value]) => [String(flag), String(value)]);

async function main(): Promise<void> {
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  console.log(`machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}`);
  console.log(`evmnode: no block for 10 min, ${OPTIONS.join(' ')}`);
  const server = await startEvmnode(repoRoot, '10m', OPTIONS);
  try {
    const senders = await devSenders(server.url);
    // Nonce 0 is never sent: every transaction is gapped.
    for (const sender of senders) sender.nonce += 1;
    const signed = (await signEthTransfers(senders, server.chainId, PER_SENDER)).flat();
    await submitAll(
      server.url,
      signed.map(({ raw }) => raw),
    );

    const listed = await pooledCount(server.url);
    if (listed !== POOLED) throw new Error(`txpool_content lists ${listed} transactions, want ${POOLED}`);
    for (let call = 0; call < WARMUP_CALLS; call++) await timedCall(server.url);
    const times: number[] = [];
    for (let call = 0; call < MEASURED_CALLS; call++) times.push(await timedCall(server.url));
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 0.5);
    const p99 = percentile(times, 0.99);
    console.log(
      `txpool_content, ${POOLED} pooled, ${MEASURED_CALLS} calls after ${WARMUP_CALLS} warm-up: ` +
        `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (target < ${TARGET_MS} ms: ${p99 < TARGET_MS ? 'met' : 'missed'})`,
    );
    if (p99 >= TARGET_MS) process.exitCode = 1;
  } finally {
    await server.stop();
  }
  await benchFullPoolAdmission(POOLED);
}

/** Submits every transaction, a few at a time; any rejection stops the bench. */
async function submitAll(url: string, raws: readonly string[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < raws.length) await rpc(url, 'eth_sendRawTransaction', [raws[next++]]);
  };
  await Promise.all(Array.from({ length: SUBMITS_IN_FLIGHT }, worker));
}

async function pooledCount(url: string): Promise<number> {
  const content = await rpc<{ pending: Record<string, Record<string, unknown>> }>(url, 'txpool_content');
  return Object.values(content.pending).reduce((sum, byNonce) => sum + Object.keys(byNonce).length, 0);
}

/** One call's time in ms, the whole answer read. */
async function timedCall(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'txpool_content', params: [] }),
  });
  await response.arrayBuffer();
  return performance.now() - started;
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

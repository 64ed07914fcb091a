/**
 * `npm run bench:methods [-- --duration <s>]`: throughput and latency of evmnode's read and
 * simulation methods (`eth_blockNumber`, `eth_getBalance`, `eth_call`, `eth_estimateGas`,
 * `eth_getBlockByNumber` alone and in batches) against anvil in the same run, at 32 requests in
 * flight over keep-alive HTTP. Each server is a child process with 400 ms blocks, prepared with the
 * same transactions (see `method-fixture.ts`), measured, then stopped before the next one starts.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { blockNumber } from './chain-rpc.js';
import { startAnvil, startEvmnode, type ChainServer } from './chain-servers.js';
import { durationArg } from './duration-arg.js';
import { runHttpLoad, type HttpLoadResult } from './http-load.js';
import { METHOD_CASES, type MethodCase } from './method-calls.js';
import { prepareFixture } from './method-fixture.js';
import { anvilBinary } from './targets.js';
import { formatTable } from './text-table.js';

const IN_FLIGHT = 32;
/** Lets JIT, connection set-up and allocator settle before measuring; not reported. */
const WARMUP_SECONDS = 2;
/**
 * evmnode refuses simulation calls beyond `max_concurrent_simulation_calls` (default: the CPU
 * count) as busy; the bench measures throughput, not that limiter, so it allows twice the load.
 */
const EVMNODE_OPTIONS = ['--evm.max_concurrent_simulation_calls', String(2 * IN_FLIGHT)];
const ANVIL_CHAIN_ID = 31337n;

/** Each server's result per method case, by server name; a server that failed is absent. */
type Results = Map<string, Map<MethodCase, HttpLoadResult>>;

async function main(): Promise<void> {
  const seconds = durationArg(5);
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const anvil = anvilBinary();
  const anvilVersion = execFileSync(anvil, ['--version'], { encoding: 'utf8' }).split('\n')[0]?.trim() ?? '?';
  console.log(`machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}`);
  console.log(`peers: ${anvilVersion} (-b 0.4)`);
  console.log(`evmnode: ${EVMNODE_OPTIONS.join(' ')}`);
  console.log(
    `load: HTTP POST, ${IN_FLIGHT} in flight on keep-alive connections, ${WARMUP_SECONDS} s warm-up + ${seconds} s measured per row`,
  );

  const results: Results = new Map();
  const servers: [string, () => Promise<ChainServer>][] = [
    ['evmnode', () => startEvmnode(repoRoot, '400ms', EVMNODE_OPTIONS)],
    ['anvil', () => startAnvil(anvil, ANVIL_CHAIN_ID, 0.4)],
  ];
  for (const [name, start] of servers) {
    try {
      results.set(name, await measure(await start(), seconds));
    } catch (error) {
      console.log(`${name} skipped: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  report(results);
  if ([...results.values()].some((byCase) => [...byCase.values()].some((result) => result.errors > 0)))
    process.exitCode = 1;
}

/** Prepares the chain, then runs every method case against it; stops the server whatever happened. */
async function measure(server: ChainServer, seconds: number): Promise<Map<MethodCase, HttpLoadResult>> {
  try {
    console.error(`${server.name}: preparing the chain…`);
    const fixture = await prepareFixture(server);
    const byCase = new Map<MethodCase, HttpLoadResult>();
    for (const method of METHOD_CASES) {
      const call = method.build(fixture, await headWithBlocks(server.url, method.blocksNeeded));
      console.error(`${server.name} ${method.name}: warming up, then measuring ${seconds} s`);
      await runHttpLoad(server.url, call, IN_FLIGHT, WARMUP_SECONDS);
      byCase.set(method, await runHttpLoad(server.url, call, IN_FLIGHT, seconds));
    }
    return byCase;
  } finally {
    await server.stop();
  }
}

/** The head height once the chain has at least `blocks` blocks, genesis included. */
async function headWithBlocks(url: string, blocks: number): Promise<number> {
  for (;;) {
    const head = await blockNumber(url);
    if (head + 1 >= blocks) return head;
    await sleep(100);
  }
}

function report(results: Results): void {
  const rows = METHOD_CASES.flatMap((method) =>
    [...results].flatMap(([name, byCase]) => {
      const result = byCase.get(method);
      if (result === undefined) return [];
      return [
        [
          method.name,
          name,
          result.requestsPerSecond.toFixed(0),
          (result.requestsPerSecond * method.calls).toFixed(0),
          result.p50Ms.toFixed(2),
          result.p99Ms.toFixed(2),
          String(result.errors),
        ],
      ];
    }),
  );
  console.log();
  const header = ['method', 'server', 'req/s', 'calls/s', 'p50 ms', 'p99 ms', 'errors'];
  for (const line of formatTable(header, rows, 2)) console.log(line);

  const ours = results.get('evmnode');
  const ratioRows = METHOD_CASES.map((method) => {
    const mine = ours?.get(method);
    const verdicts = method.targets.map(({ peer, atLeast }) => {
      const theirs = results.get(peer)?.get(method);
      if (mine === undefined || theirs === undefined) return 'n/a';
      if (mine.errors > 0 || theirs.errors > 0) return 'no (errors)';
      return mine.requestsPerSecond / theirs.requestsPerSecond >= atLeast ? 'yes' : 'NO';
    });
    const theirs = results.get('anvil')?.get(method);
    const ratio =
      mine === undefined || theirs === undefined ? 'n/a' : (mine.requestsPerSecond / theirs.requestsPerSecond).toFixed(2);
    const target = method.targets.map(({ peer, atLeast }) => `≥ ${atLeast}× ${peer}`).join(', ') || '-';
    return [method.name, ratio, target, verdicts.join(', ') || '-'];
  });
  console.log();
  for (const line of formatTable(['method', 'evmnode/anvil', 'target', 'met'], ratioRows, 1)) console.log(line);

  const problems = [...results].flatMap(([name, byCase]) =>
    [...byCase].flatMap(([method, result]) =>
      result.errors > 0 ? [`${name} ${method.name}: ${result.errors} errors, first: ${result.firstProblem}`] : [],
    ),
  );
  if (problems.length > 0) console.log(['', ...problems].join('\n'));
  console.log();
}

try {
  await main();
} catch (error) {
  console.error(`bench:methods failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}

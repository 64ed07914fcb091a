/**
 * `npm run bench:methods [-- --duration <s>]`: throughput and latency of evmnode's read and
 * simulation methods (`eth_blockNumber`, `eth_getBalance`, `eth_call`, `eth_estimateGas`,
 * `eth_getBlockByNumber` alone and in batches) against anvil in the same run, and evmnode's legacy
 * `ext_`/`ext2_getBlockByNumber` against its own `eth_getBlockByNumber`, at 32 requests in
 * flight over keep-alive HTTP. Both servers are child processes with 400 ms blocks whose chains are
 * prepared with the same transactions (see `method-fixture.ts`). Then the cost of the legacy gate
 * on `eth_blockNumber` (see `gate-cost.ts`).
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { blockNumber } from './chain-rpc.js';
import { startAnvil, startEvmnode, type ChainServer } from './chain-servers.js';
import { durationArg } from './duration-arg.js';
import { LEGACY_METHOD_COUNT, measureGateCost } from './gate-cost.js';
import {
  runHttpLoad,
  sampleHttpLoad,
  summarize,
  type HttpLoadResult,
  type HttpSamples,
  type PostedCall,
} from './http-load.js';
import { LEGACY_METHODS, METHOD_CASES, type Fixture, type MethodCase, type Ratio } from './method-calls.js';
import { prepareFixture } from './method-fixture.js';
import { anvilBinary } from './targets.js';
import { formatTable } from './text-table.js';

const IN_FLIGHT = 32;
/** Lets JIT, connection set-up and allocator settle before measuring; not reported. */
const WARMUP_SECONDS = 2;
/** Turns each server takes at each method: a burst of other work on the machine lands on both. */
const SLICES = 5;
/**
 * evmnode refuses simulation calls beyond `max_concurrent_simulation_calls` (default: the CPU
 * count) as busy; the bench measures throughput, not that limiter, so it allows twice the load.
 */
const EVMNODE_OPTIONS = [
  '--evm.max_concurrent_simulation_calls',
  String(2 * IN_FLIGHT),
  // Any free port: the gate rows run two nodes at once, and other nodes may run on the machine.
  '--native.rpc_port',
  '0',
  '--evm.enabled_legacy_ext_apis',
  LEGACY_METHODS.join(','),
];
const ANVIL_CHAIN_ID = 31337n;
/** Ample for the 100 blocks a batch reads: 40 s of 400 ms blocks. */
const BLOCKS_WAIT_MS = 120_000;

/**
 * Each server's result per method case, by server name (a server that failed to start is
 * absent); and for a case compared with another method of its own server, that method's result
 * measured in turns with it.
 */
interface Results {
  readonly byServer: Map<string, Map<MethodCase, HttpLoadResult>>;
  readonly paired: Map<MethodCase, HttpLoadResult>;
}

interface Prepared {
  readonly server: ChainServer;
  readonly fixture: Fixture;
}

async function main(): Promise<void> {
  const seconds = durationArg(5);
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const anvil = anvilBinary();
  const anvilVersion = execFileSync(anvil, ['--version'], { encoding: 'utf8' }).split('\n')[0]?.trim() ?? '?';
  console.log(`machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}`);
  console.log(`evmnode: 400 ms blocks, ${EVMNODE_OPTIONS.join(' ')}; peer: ${anvilVersion}, -b 0.4`);
  console.log(
    `load: HTTP POST, ${IN_FLIGHT} in flight on keep-alive connections; per row ${WARMUP_SECONDS} s warm-up, then ${seconds} s measured in ${SLICES} turns taken with the other server`,
  );

  const prepared: Prepared[] = [];
  let blockNumberCall: PostedCall | undefined;
  try {
    for (const [name, start] of [
      ['evmnode', () => startEvmnode(repoRoot, '400ms', EVMNODE_OPTIONS)],
      ['anvil', () => startAnvil(anvil, ANVIL_CHAIN_ID, 0.4)],
    ] as const) {
      const server = await prepare(name, start);
      if (server !== undefined) prepared.push(server);
    }
    const results = await measure(prepared, seconds);
    report(results);
    if ([...results.byServer.values()].some((byCase) => [...byCase.values()].some((result) => result.errors > 0)))
      process.exitCode = 1;
    const evmnode = prepared.find(({ server }) => server.name === 'evmnode');
    if (evmnode !== undefined) blockNumberCall = BLOCK_NUMBER.build(evmnode.fixture, 0);
  } finally {
    await Promise.all(prepared.map(({ server }) => server.stop()));
  }
  // On fresh nodes, once the others are stopped: the two rates compared should differ only by the list.
  if (blockNumberCall !== undefined) await reportGateCost(repoRoot, blockNumberCall, seconds);
}

const BLOCK_NUMBER = METHOD_CASES.find(({ name }) => name === 'eth_blockNumber')!;

/** `eth_blockNumber` with the default `enabled_legacy_ext_apis` and with every legacy method enabled. */
async function reportGateCost(repoRoot: string, call: PostedCall, seconds: number): Promise<void> {
  console.error(`legacy gate: eth_blockNumber on two fresh nodes, default list and all ${LEGACY_METHOD_COUNT} enabled`);
  const settings = { repoRoot, options: EVMNODE_OPTIONS, call, inFlight: IN_FLIGHT, slices: SLICES };
  const cost = await measureGateCost({ ...settings, warmupSeconds: WARMUP_SECONDS, seconds });
  const row = (list: string, result: HttpLoadResult) => [
    'eth_blockNumber',
    list,
    result.requestsPerSecond.toFixed(0),
    milliseconds(result.p50Ms),
    milliseconds(result.p99Ms),
    String(result.errors),
  ];
  const rows = [
    row('default (3 names)', cost.defaultList),
    row(`all ${LEGACY_METHOD_COUNT} legacy methods`, cost.longList),
  ];
  const header = ['legacy gate', 'enabled_legacy_ext_apis', 'req/s', 'p50 ms', 'p99 ms', 'errors'];
  for (const line of formatTable(header, rows, 'llrrrr')) console.log(line);
  const change = cost.longList.requestsPerSecond / cost.defaultList.requestsPerSecond - 1;
  const met = Math.abs(change) < cost.noise ? 'yes' : 'NO';
  console.log(
    `all/default ${(1 + change).toFixed(3)} (${percent(change)}); noise (largest turn-to-turn spread) ${percent(cost.noise)}; target: change < noise: ${met}`,
  );
  if (cost.defaultList.errors + cost.longList.errors > 0) process.exitCode = 1;
  console.log();
}

const percent = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`;

/** Starts a server and prepares its chain; a server that fails costs its rows, not the others'. */
async function prepare(name: string, start: () => Promise<ChainServer>): Promise<Prepared | undefined> {
  console.error(`${name}: starting and preparing the chain…`);
  let server: ChainServer | undefined;
  try {
    server = await start();
    return { server, fixture: await prepareFixture(server) };
  } catch (error) {
    await server?.stop();
    console.log(`${name} skipped: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/**
 * Every method case on every server. The servers take turns in slices of each case's time, so that
 * whatever else runs on the machine weighs on the figures compared with each other alike.
 */
async function measure(prepared: readonly Prepared[], seconds: number): Promise<Results> {
  const byServer = new Map(prepared.map(({ server }) => [server.name, new Map<MethodCase, HttpLoadResult>()]));
  const paired = new Map<MethodCase, HttpLoadResult>();
  for (const method of METHOD_CASES) {
    const turns: { server: ChainServer; call: PostedCall; runs: HttpSamples[]; keep: (r: HttpLoadResult) => void }[] =
      [];
    for (const { server, fixture } of prepared) {
      if (method.servers !== undefined && !method.servers.includes(server.name)) continue;
      const head = await headWithBlocks(server.url, method.blocksNeeded);
      const keep = (result: HttpLoadResult) => byServer.get(server.name)?.set(method, result);
      turns.push({ server, call: method.build(fixture, head), runs: [], keep });
      // The method it is compared with on its own server takes its turns beside it.
      for (const target of method.targets.filter(({ peer, method: named }) => peer === server.name && named)) {
        const call = peerCase(method, target).build(fixture, head);
        turns.push({ server, call, runs: [], keep: (result) => paired.set(method, result) });
      }
    }
    for (const { server, call } of turns) {
      console.error(`${server.name} ${method.name}: warming up`);
      await runHttpLoad(server.url, call, IN_FLIGHT, WARMUP_SECONDS);
    }
    console.error(`${method.name}: measuring ${seconds} s on each server, in ${SLICES} turns`);
    for (let slice = 0; slice < SLICES; slice++)
      for (const { server, call, runs } of turns)
        runs.push(await sampleHttpLoad(server.url, call, IN_FLIGHT, seconds / SLICES));
    for (const { runs, keep } of turns) keep(summarize(runs));
  }
  return { byServer, paired };
}

/** The head height once the chain has at least `blocks` blocks, genesis included. */
async function headWithBlocks(url: string, blocks: number): Promise<number> {
  const deadline = performance.now() + BLOCKS_WAIT_MS;
  for (;;) {
    const head = await blockNumber(url);
    if (head + 1 >= blocks) return head;
    if (performance.now() > deadline) throw new Error(`${url} is at height ${head} after ${BLOCKS_WAIT_MS} ms`);
    await sleep(100);
  }
}

function report(results: Results): void {
  const rows = METHOD_CASES.flatMap((method) =>
    [...results.byServer].flatMap(([name, byCase]) => {
      const result = byCase.get(method);
      if (result === undefined) return [];
      return [
        [
          method.name,
          name,
          result.requestsPerSecond.toFixed(0),
          (result.requestsPerSecond * method.calls).toFixed(0),
          milliseconds(result.p50Ms),
          milliseconds(result.p99Ms),
          String(result.errors),
        ],
      ];
    }),
  );
  console.log();
  const header = ['method', 'server', 'req/s', 'calls/s', 'p50 ms', 'p99 ms', 'errors'];
  for (const line of formatTable(header, rows, 'llrrrrr')) console.log(line);

  const ratioRows = METHOD_CASES.map((method) => {
    const mine = results.byServer.get('evmnode')?.get(method);
    const anvil = results.byServer.get('anvil')?.get(method);
    const ratio = mine && anvil ? (mine.requestsPerSecond / anvil.requestsPerSecond).toFixed(2) : 'n/a';
    const targets = method.targets.map(
      ({ peer, atLeast, knownRate, method: peerMethod }) =>
        `≥ ${atLeast}× ${peer}${peerMethod === undefined ? '' : ` ${peerMethod}`}${knownRate === undefined ? '' : ` (${knownRate}/s, measured separately)`}`,
    );
    const verdicts = method.targets.map((target) => verdict(mine, comparedResult(results, method, target), target));
    return [method.name, ratio, targets.join(', ') || '-', verdicts.join(', ') || '-'];
  });
  console.log();
  for (const line of formatTable(['method', 'evmnode/anvil', 'target', 'met'], ratioRows, 'lrll')) console.log(line);

  const problems = [...results.byServer].flatMap(([name, byCase]) =>
    [...byCase].flatMap(([method, result]) =>
      result.errors > 0 ? [`${name} ${method.name}: ${result.errors} errors, first: ${result.firstProblem}`] : [],
    ),
  );
  if (problems.length > 0) console.log(['', ...problems].join('\n'));
  console.log();
}

/** What a target compares with: the paired measurement of a method of evmnode's own, else the peer's. */
function comparedResult(results: Results, method: MethodCase, target: Ratio): HttpLoadResult | undefined {
  if (target.peer === 'evmnode' && target.method !== undefined) return results.paired.get(method);
  return results.byServer.get(target.peer)?.get(peerCase(method, target));
}

/** The case a target compares with: the same one on the peer, or the one it names. */
function peerCase(method: MethodCase, target: Ratio): MethodCase {
  if (target.method === undefined) return method;
  const named = METHOD_CASES.find(({ name }) => name === target.method);
  if (named === undefined) throw new Error(`${method.name}: its target names no method case "${target.method}"`);
  return named;
}

/** A latency; NaN (no right answer at all) shows as `-`. */
const milliseconds = (ms: number): string => (Number.isNaN(ms) ? '-' : ms.toFixed(2));

/** Whether evmnode's rate reaches `atLeast` times the peer's, measured here or known; errors miss it. */
function verdict(mine: HttpLoadResult | undefined, theirs: HttpLoadResult | undefined, target: Ratio): string {
  const peerRate = theirs?.requestsPerSecond ?? target.knownRate;
  if (mine === undefined || peerRate === undefined) return 'n/a';
  if (mine.errors > 0 || (theirs?.errors ?? 0) > 0) return 'no (errors)';
  const ratio = mine.requestsPerSecond / peerRate;
  return `${ratio >= target.atLeast ? 'yes' : 'NO'} (${ratio.toFixed(2)}×)`;
}

try {
  await main();
} catch (error) {
  console.error(`bench:methods failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}

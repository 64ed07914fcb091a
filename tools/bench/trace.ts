/**
 * `npm run bench:trace`: latency of `debug_traceTransaction` (an ERC20 transfer, its block's first:
 * struct logger, `callTracer` from evmnode's trace cache and traced live, a JS opcode-counting
 * tracer; and `callTracer` live on the block's last transfer) and of
 * `debug_traceBlockByNumber` (a block of 200 ERC20 transfers, `callTracer` cached and live), beside
 * anvil in the same run and beside each server's `eth_blockNumber` (one HTTP round trip); and
 * evmnode's commit time of such blocks with the trace cache on and off, on two nodes running at
 * once whose rounds alternate, so that the machine's noise falls on both alike. Each server is a
 * child process with 2 s blocks; calls are sent one at a time over one keep-alive HTTP connection, after a
 * warm-up, to evmnode and anvil in alternating turns.
 *
 * A trace runs the block's transactions before the one traced. anvil runs them again at every
 * call, evmnode from where its last trace of the block stopped; so the transfer the rows compare is
 * the block's first on both servers, and the last one has a row of its own.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { rpc } from './chain-rpc.js';
import { startAnvil, startEvmnode, type ChainServer } from './chain-servers.js';
import { sampleHttpLoad } from './http-load.js';
import { percentile } from './load-result.js';
import { anvilBinary } from './targets.js';
import { formatTable } from './text-table.js';
import { oneBlockRound, prepareToken, type RoundBlock } from './trace-rounds.js';

const TRANSFERS = 200;
/**
 * Rounds per evmnode node, alternating between the cache-on and cache-off nodes: a block's commit
 * time moves by a third from round to round, and the ratio of two medians of seven moved by ±15%.
 */
const COMMIT_ROUNDS = 17;
/** The first rounds of each node are not counted: a node just started still compiles its hot paths. */
const WARMUP_ROUNDS = 2;
/** Ample for the cache-on node to bake a round's block before the other node's round starts. */
const SETTLE_MS = 1_500;
const WARMUP_CALLS = 20;
/** How long each case is measured: a fast one gets thousands of calls, anvil's block traces (seconds each) a few. */
const CASE_SECONDS = 10;
/** Turns of each server in a case compared across servers. */
const TURNS = 4;
const ANVIL_CHAIN_ID = 31337n;
const CACHED = { tracer: 'callTracer' };
/** Any option but the tracer's name makes evmnode trace live; geth's default timeout changes nothing else. */
const LIVE = { tracer: 'callTracer', timeout: '5s' };
const COUNT_OPCODES =
  '{count: 0, step: function(log, db) { this.count++ }, fault: function() {}, result: function() { return this.count }}';
const JS_COUNTER = { tracer: COUNT_OPCODES };

interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly calls: number;
}

/** A server's answer times for a case, or what went wrong. */
type Measured = Latency | { readonly error: string };

/** A JSON-RPC call one server is measured with. */
interface Case {
  readonly server: ChainServer;
  readonly method: string;
  readonly params: readonly unknown[];
}

/** Calls that warm a case up (the server compiles its path, anvil fills its caches). */
async function warmUp({ server, method, params }: Case): Promise<void> {
  const warmUpEnd = performance.now() + (CASE_SECONDS * 1000) / 4;
  for (let call = 0; call < WARMUP_CALLS && performance.now() < warmUpEnd; call++)
    await rpc(server.url, method, params);
}

/** Answer times (ms) of calls sent one at a time for `seconds` over one keep-alive connection (autocannon). */
async function sample({ server, method, params }: Case, seconds: number): Promise<number[]> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const problem = (answer: string) => (answer.includes('"result"') ? undefined : answer.slice(0, 200));
  const samples = await sampleHttpLoad(server.url, { body, problem }, 1, seconds);
  if (samples.firstProblem !== undefined) throw new Error(samples.firstProblem);
  return [...samples.latenciesMs];
}

function summary(times: readonly number[]): Latency {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), calls: sorted.length };
}

/** What went wrong in a case, as its cell says. */
const failure = (error: unknown): Measured => ({ error: error instanceof Error ? error.message : String(error) });

/**
 * Median and 99th percentile (ms) of a case's calls sent one at a time for {@link CASE_SECONDS}
 * over one keep-alive connection (autocannon, which adds the least of any client to a round trip),
 * after a warm-up; an error answer ends the case.
 */
async function latency(measured: Case): Promise<Measured> {
  try {
    await warmUp(measured);
    return summary(await sample(measured, CASE_SECONDS));
  } catch (error) {
    return failure(error);
  }
}

/**
 * evmnode's case and anvil's, each for {@link CASE_SECONDS} in all, in alternating turns (ours,
 * theirs, theirs, ours, …): the machine's speed moves by a fifth from one spell to the next, and
 * cases measured one after the other would put a spell's difference on the servers.
 */
async function latencyInTurns(ours: Case, theirs: Case): Promise<readonly [Measured, Measured]> {
  const sides = [ours, theirs].map((measured) => ({
    measured,
    times: [] as number[],
    error: undefined as Measured | undefined,
  }));
  type Side = (typeof sides)[number];
  // An error answer ends that server's case; the other's goes on.
  const attempt = async (side: Side, step: () => Promise<void>): Promise<void> => {
    if (side.error !== undefined) return;
    try {
      await step();
    } catch (error) {
      side.error = failure(error);
    }
  };
  for (const side of sides) await attempt(side, () => warmUp(side.measured));
  for (let turn = 0; turn < TURNS; turn++)
    for (const side of turn % 2 === 0 ? sides : [...sides].reverse())
      await attempt(side, async () => {
        side.times.push(...(await sample(side.measured, CASE_SECONDS / TURNS)));
      });
  const [mine, peer] = sides.map((side) => side.error ?? summary(side.times));
  return [mine!, peer!];
}

const cell = (measured: Measured): string =>
  'error' in measured
    ? `error: ${measured.error}`
    : `${measured.p50.toFixed(2)} / ${measured.p99.toFixed(2)} (${measured.calls})`;
/** NaN for an error, so that no target counts as met. */
const p50 = (measured: Measured): number => ('error' in measured ? NaN : measured.p50);
const met = (yes: boolean): string => (yes ? 'met' : 'MISSED');
const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** The servers once all are up; if one fails to start, the others are stopped. */
async function startAll<T extends readonly Promise<ChainServer>[]>(
  starting: T,
): Promise<{ -readonly [K in keyof T]: ChainServer }> {
  const settled = await Promise.allSettled(starting);
  const failed = settled.find((result) => result.status === 'rejected');
  const started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (failed === undefined) return started as { -readonly [K in keyof T]: ChainServer };
  await Promise.all(started.map((server) => server.stop()));
  throw failed.reason;
}

/** The commit row: the median commit time of each node's measured rounds, their ratio and the target. */
function commitRow(on: readonly RoundBlock[], off: readonly RoundBlock[]): string[] {
  const [onMs, offMs] = [on, off].map((rounds) => median(rounds.map((block) => block.commitMs!))) as [number, number];
  const sizes = (rounds: readonly RoundBlock[]) => rounds.map((block) => block.transactions.length).join('/');
  return [
    `block commit, cache on / off, median of ${on.length} alternating rounds each (blocks of ${sizes(on)} / ${sizes(off)} txs)`,
    `${onMs.toFixed(1)} / ${offMs.toFixed(1)} ms = ${(onMs / offMs).toFixed(2)}`,
    '-',
    'on <= 1.10 × off',
    met(onMs <= 1.1 * offMs),
  ];
}

async function main(): Promise<void> {
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const anvilVersion = execFileSync(anvilBinary(), ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '?';
  console.log(`machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}`);
  console.log(`${anvilVersion.trim()}, with --steps-tracing (without it its struct logger answers no steps)`);

  // Two nodes at once: each needs its own native gateway port.
  const ports = ['--native.rpc_port', '0'];
  const [cacheOn, cacheOff, anvil] = await startAll([
    startEvmnode(repoRoot, '2s', ports),
    startEvmnode(repoRoot, '2s', [...ports, '--plugins.debug-trace.trace_bake_enabled', 'false']),
    startAnvil(anvilBinary(), ANVIL_CHAIN_ID, 2, ['--steps-tracing']),
  ] as const);
  try {
    const [on, off, peer] = await Promise.all([cacheOn, cacheOff, anvil].map(prepareToken));
    const rounds = new Map<ChainServer, RoundBlock[]>([
      [cacheOn, []],
      [cacheOff, []],
    ]);
    for (let round = 0; round < COMMIT_ROUNDS; round++)
      for (const workload of round % 2 === 0 ? [on!, off!] : [off!, on!]) {
        console.error(`commit round ${round + 1}/${COMMIT_ROUNDS}, cache ${workload === on ? 'on' : 'off'}…`);
        rounds.get(workload.server)!.push(await oneBlockRound(workload, TRANSFERS));
        await sleep(SETTLE_MS);
      }
    // Only the cache-on node is timed from here on: the other would only share the machine.
    await cacheOff.stop();
    console.error('anvil round…');
    const theirs = await oneBlockRound(peer!, TRANSFERS);
    const ours = rounds.get(cacheOn)!.reduce((a, b) => (b.transactions.length > a.transactions.length ? b : a));

    const rows: string[][] = [];
    const row = (name: string, mine: Measured, peerMeasured: Measured, target: string, verdict: string): void => {
      rows.push([name, cell(mine), cell(peerMeasured), target, verdict]);
    };
    const both = async (method: string, mine: readonly unknown[], peerParams: readonly unknown[]) => {
      console.error(`${method} ${JSON.stringify(mine.slice(1))}…`);
      return latencyInTurns({ server: cacheOn, method, params: mine }, { server: anvil, method, params: peerParams });
    };
    const [ourTx, theirTx] = [ours.transactions[0]!, theirs.transactions[0]!];

    const [ourFloor, theirFloor] = await both('eth_blockNumber', [], []);
    row('eth_blockNumber (one HTTP round trip)', ourFloor, theirFloor, '-', '-');

    const steps = async (server: ChainServer, hash: string) =>
      (await rpc<{ structLogs: unknown[] }>(server.url, 'debug_traceTransaction', [hash])).structLogs.length;
    const [ourSteps, theirSteps] = [await steps(cacheOn, ourTx), await steps(anvil, theirTx)];
    const [ourStruct, theirStruct] = await both('debug_traceTransaction', [ourTx], [theirTx]);
    row(
      `traceTransaction ERC20 transfer, struct logger (${ourSteps} steps; anvil ${theirSteps})`,
      ourStruct,
      theirStruct,
      '< 4 ms',
      met(p50(ourStruct) < 4),
    );

    const [ourCached, theirCall] = await both('debug_traceTransaction', [ourTx, CACHED], [theirTx, CACHED]);
    row(
      'traceTransaction ERC20 transfer, callTracer cached',
      ourCached,
      theirCall,
      '< 0.5 ms',
      met(p50(ourCached) < 0.5),
    );
    // anvil traces live whatever the options: its figure is measured again, in turns with this row's.
    const [ourLive, theirLive] = await both('debug_traceTransaction', [ourTx, LIVE], [theirTx, CACHED]);
    row(
      'traceTransaction ERC20 transfer, callTracer live',
      ourLive,
      theirLive,
      "<= anvil's",
      met(p50(ourLive) <= p50(theirLive)),
    );

    const [ourLast, theirLast] = await both(
      'debug_traceTransaction',
      [ours.transactions.at(-1), LIVE],
      [theirs.transactions.at(-1), CACHED],
    );
    row(
      `traceTransaction, callTracer live, the last transfer of the block (of ${ours.transactions.length}; anvil ${theirs.transactions.length})`,
      ourLast,
      theirLast,
      '-',
      '-',
    );

    const counted = async (server: ChainServer, hash: string) =>
      rpc<number>(server.url, 'debug_traceTransaction', [hash, JS_COUNTER]).then(String, () => 'error');
    const [ourCount, theirCount] = [await counted(cacheOn, ourTx), await counted(anvil, theirTx)];
    const [ourJs, theirJs] = await both('debug_traceTransaction', [ourTx, JS_COUNTER], [theirTx, JS_COUNTER]);
    row(
      `traceTransaction ERC20 transfer, JS opcode counter (counts ${ourCount}; anvil ${theirCount})`,
      ourJs,
      theirJs,
      '< 20 ms',
      met(p50(ourJs) < 20),
    );

    const blockName = `traceBlockByNumber ${ours.transactions.length} txs (anvil ${theirs.transactions.length}), callTracer`;
    const ourBlock = (config: object) => [`0x${ours.height.toString(16)}`, config];
    const theirBlock = [`0x${theirs.height.toString(16)}`, CACHED];
    // anvil takes seconds a block trace, longer than a turn: the two servers are measured one after the other.
    const [ourBlockCached, theirBlockCall] = [
      await latency({ server: cacheOn, method: 'debug_traceBlockByNumber', params: ourBlock(CACHED) }),
      await latency({ server: anvil, method: 'debug_traceBlockByNumber', params: theirBlock }),
    ];
    row(`${blockName} cached`, ourBlockCached, theirBlockCall, '< 20 ms', met(p50(ourBlockCached) < 20));
    const ourBlockLive = await latency({ server: cacheOn, method: 'debug_traceBlockByNumber', params: ourBlock(LIVE) });
    row(`${blockName} live`, ourBlockLive, theirBlockCall, '-', '-');

    const [onRounds, offRounds] = [
      rounds.get(cacheOn)!.slice(WARMUP_ROUNDS),
      rounds.get(cacheOff)!.slice(WARMUP_ROUNDS),
    ];
    rows.push(commitRow(onRounds, offRounds));
    for (const [cache, measured] of [
      ['on', onRounds],
      ['off', offRounds],
    ] as const)
      console.log(`per-round commit ms, cache ${cache}: ${measured.map((b) => b.commitMs!.toFixed(1)).join(', ')}`);
    console.log(
      `latency: p50 / p99 ms (calls measured), calls one at a time for ${CASE_SECONDS} s over one keep-alive connection, after ${WARMUP_CALLS} warm-up;`,
    );
    console.log(
      `evmnode and anvil in ${TURNS} alternating turns each (ours, theirs, theirs, ours, …), but for block traces, one after the other`,
    );
    console.log('traceTransaction rows trace the first transfer of the block unless they say otherwise');
    for (const line of formatTable(['case', 'evmnode', 'anvil', 'target', 'met'], rows, 'lrrll')) console.log(line);
  } finally {
    await Promise.all([cacheOn.stop(), cacheOff.stop(), anvil.stop()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

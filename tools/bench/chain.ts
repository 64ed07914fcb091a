/**
 * `npm run bench:chain`: transaction ingestion of evmnode beside anvil (`--block-time 1`): 24,000
 * pre-signed ETH transfers and 10,000 ERC20 transfers from 10 dev accounts at 32 in flight, timed
 * first submit to last receipt, after 1,000 untimed ETH transfers warm each server up, and 1,000
 * untimed token transfers before the ERC20 ones (ingestion is a steady-state figure; a node just
 * started also compiles its hot paths, and plain transfers never run the EVM); evmnode's commit
 * time of blocks full of ETH transfers, then of blocks full of ERC20 transfers (5 s block time,
 * so that the submissions are all in before the block starts; from its debug log), after the
 * same warm-up and, for ERC20 blocks, a round of them (plain ETH transfers never run the EVM);
 * the first full block of each warm-up is reported apart as the cold one; peak RSS and start-up
 * time of each server. Servers are child processes.
 *
 * First, on-demand blocks: 1,000 sequential send-and-wait round trips on evmnode with
 * `block_time` "0s" and on anvil's automine (`chain-on-demand.ts`), three runs of each on fresh
 * servers in alternating order, each server's median run compared; `-- --on-demand-only` stops
 * there.
 *
 * Each ingestion row says which share of the capacity ceiling it reached (the transfers of that
 * kind 400 ms blocks of the block gas limit hold per second) and the block interval meanwhile
 * (its p99, and in the note the longest interval with where the block that ended it spent its time).
 * `-- --gas-limit 60000000` runs every server on blocks of that much gas (evmnode's genesis,
 * anvil's `--gas-limit`); the targets are then ratios to anvil.
 *
 * `npm run bench:chain -- --soak 100000` adds a soak phase at the end (see `chain-soak.ts`):
 * evmnode's RSS over 100,000 ETH transfers on a fresh node. Off by default.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startAnvil, startEvmnode, type BlockLine, type ChainServer } from './chain-servers.js';
import { cadenceOf, ceilingTps, gasPerTx, phaseBlocks, tps, type Cadence } from './chain-capacity.js';
import { sendAndWait, type RoundTrips } from './chain-on-demand.js';
import { soak } from './chain-soak.js';
import {
  deployToken,
  devSenders,
  ingest,
  SENDER_COUNT,
  signEthTransfers,
  signTokenTransfers,
  type Ingestion,
  type Sender,
  type SignedTx,
} from './chain-workload.js';
import { percentile } from './load-result.js';
import { anvilBinary } from './targets.js';

const IN_FLIGHT = 32;
/**
 * Each ingestion phase holds about 40 blocks' worth of its transfers (595 ETH or 241 ERC20 ones
 * fit in a block of the default gas limit), so that where the phase starts within a slot and how
 * full its last block is weigh a few percent. With 6,000 transfers, 10.08 blocks of ETH ones, a
 * node filling every block still took 11 slots, 92-99% of the ceiling depending on the start.
 */
const ETH_PER_SENDER = 2_400;
const ERC20_PER_SENDER = 1_000;
/** The ingestion node's pool: submissions outrun the blocks, so up to ~10,000 transfers wait; the default holds 5,000. */
const INGESTION_POOL_SIZE = 30_000;
const WARM_UP_PER_SENDER = 100;
/** 3,000 transfers against 5 s blocks: ~595 (the 12.5M gas limit) fit in each block, so five full blocks. */
const FULL_BLOCK_PER_SENDER = 300;
const FULL_BLOCK_MIN_TXS = 400;
/** 1,200 token transfers to new holders: ~241 fit in a block of the default gas limit, so five full blocks. */
const FULL_ERC20_BLOCK_PER_SENDER = 120;
const FULL_ERC20_BLOCK_MIN_TXS = 200;
const PHASE_MS = 120_000;
/** evmnode's local network; anvil is started with it too, so the same kind of signatures serve both. */
const ANVIL_CHAIN_ID = 713714n;
const MB = 1024 * 1024;
const DEFAULT_GAS_LIMIT = 12_500_000n;
const BLOCK_SECONDS = 0.4;
const ON_DEMAND_ROUNDS = 1_000;
const ON_DEMAND_WARM_UP = 100;
const ON_DEMAND_RUNS = 3;

interface Figures {
  readonly startupMs: number;
  readonly eth: Ingestion;
  readonly erc20: Ingestion;
  readonly rssBytes: number;
  /** evmnode's `block committed` lines; empty for anvil. */
  readonly blocks: readonly BlockLine[];
}

interface FullBlocks {
  /** The first full block of the warm-up: the node's hot paths not yet compiled. */
  readonly cold: BlockLine | undefined;
  /** Blocks full of ETH transfers. */
  readonly blocks: readonly BlockLine[];
  /** The first block full of ERC20 transfers: the EVM's hot paths not yet compiled. */
  readonly coldErc20: BlockLine | undefined;
  /** Blocks full of ERC20 transfers, measured after the ETH ones and a round of ERC20 ones. */
  readonly erc20Blocks: readonly BlockLine[];
  readonly startupMs: number;
  readonly rssBytes: number;
}

async function main(): Promise<void> {
  const options = benchOptions();
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const anvil = anvilBinary();
  const anvilVersion = execFileSync(anvil, ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '?';
  console.log(
    `machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / MB / 1024).toFixed(1)} GB`,
  );
  console.log(`node ${process.version}; ${anvilVersion.trim()}`);
  console.log(
    `load: ${SENDER_COUNT} senders × ${ETH_PER_SENDER} ETH / ${ERC20_PER_SENDER} ERC20 pre-signed type-2 transfers to` +
      ` random addresses, ${IN_FLIGHT} in flight, after ${SENDER_COUNT * WARM_UP_PER_SENDER} untimed ETH transfers` +
      ` (and as many untimed ERC20 ones before the ERC20 phase);` +
      ` evmnode's pool holds ${INGESTION_POOL_SIZE}`,
  );

  await reportOnDemand(repoRoot, anvil);
  if (options.onDemandOnly) return;

  const { gasLimit } = options;
  const defaults = gasLimit === DEFAULT_GAS_LIMIT;
  console.log(`block gas limit ${gasLimit} (genesis; anvil --gas-limit)${defaults ? ', the default' : ''}`);
  const pool = ['--mempool.size', String(INGESTION_POOL_SIZE)];
  const ours = await measure(await startEvmnode(repoRoot, '400ms', pool, gasLimit));
  const full = await measureFullBlocks(await startEvmnode(repoRoot, '5s', [], gasLimit));
  // anvil raises its base fee by 12.5% a full block (evmnode by 1.89%): after the ETH phase's 40
  // it passes the workload's fee cap and the ERC20 transfers wait forever. From 0 it stays at 0.
  const anvilFees = ['--gas-limit', String(gasLimit), '--block-base-fee-per-gas', '0'];
  const peer = await measure(await startAnvil(anvil, ANVIL_CHAIN_ID, 1, anvilFees));

  console.log();
  // D4: on default parameters the node delivers 95% of the capacity; on larger blocks, more than anvil.
  for (const [name, kind, overAnvil] of [
    ['ETH', 'eth', 1.5],
    ['ERC20', 'erc20', 1.2],
  ] as const) {
    const [mine, theirs] = [ours[kind], peer[kind]];
    const ceiling = ceilingTps(gasLimit, gasPerTx(mine), BLOCK_SECONDS);
    const [target, meets] = defaults
      ? [`≥ 95% of the ceiling, ${(0.95 * ceiling).toFixed(0)}`, (v: number) => v >= 0.95 * ceiling]
      : [`≥ ${overAnvil}× anvil, ${(overAnvil * tps(theirs)).toFixed(0)}`, (v: number) => v >= overAnvil * tps(theirs)];
    printMetric(`${name} transfers, first submit to last receipt`, 'tx/s', target, meets, [
      tps(mine),
      tps(theirs),
      `${describe(mine, ours.blocks)}; ${((tps(mine) / ceiling) * 100).toFixed(1)}% of the ceiling (${ceiling.toFixed(0)} tx/s)`,
      `${describe(theirs, [])}, --block-time 1`,
    ]);
    const cadence = cadenceOf(phaseBlocks(mine, ours.blocks));
    printMetric(
      `${name} phase: block interval p99 (p50, blocks/s in the note)`,
      'ms',
      defaults ? '< 440' : undefined,
      defaults ? (v) => v < 440 : undefined,
      [
        cadence?.intervalP99Ms,
        undefined,
        cadence === undefined
          ? 'fewer than two blocks'
          : `p50 ${cadence.intervalP50Ms.toFixed(0)} ms, ${cadence.blocksPerSecond.toFixed(2)} blocks/s; ${longestInterval(cadence)}`,
        'n/a (not measured)',
      ],
    );
  }
  for (const [kind, blocks, minTxs] of [
    ['ETH', full.blocks, FULL_BLOCK_MIN_TXS],
    ['ERC20', full.erc20Blocks, FULL_ERC20_BLOCK_MIN_TXS],
  ] as const)
    printFullBlocks(kind, blocks, minTxs, defaults);
  printMetric('Block commit, first full block after start (cold)', 'ms', undefined, undefined, [
    full.cold?.durationMs,
    undefined,
    [
      full.cold === undefined ? 'no full block in the warm-up' : `${full.cold.transactions} txs`,
      full.coldErc20 === undefined
        ? 'no full ERC20 block in their warm-up'
        : `first ERC20 full block ${full.coldErc20.durationMs.toFixed(1)} ms (${full.coldErc20.transactions} txs)`,
    ].join('; '),
    'n/a (not measured)',
  ]);
  printMetric('Peak RSS (VmHWM at the end of the run)', 'MB', '< 512', (v) => v < 512, [
    ours.rssBytes / MB,
    peer.rssBytes / MB,
    `5 s block-time node: ${(full.rssBytes / MB).toFixed(0)} MB`,
    '',
  ]);
  printMetric('Start-up, spawn to first eth_chainId answer', 'ms', '< 1,000', (v) => v < 1000, [
    ours.startupMs,
    peer.startupMs,
    `5 s block-time node: ${full.startupMs.toFixed(0)} ms`,
    '',
  ]);
  if (options.soak !== undefined) await soak(repoRoot, options.soak);
}

/**
 * `--soak N`: how many transfers the soak phase streams (no soak without it);
 * `--gas-limit N`: the genesis block gas limit of every server (12,500,000 by default);
 * `--on-demand-only`: only the on-demand row.
 */
function benchOptions(): {
  readonly soak: number | undefined;
  readonly gasLimit: bigint;
  readonly onDemandOnly: boolean;
} {
  const { values } = parseArgs({
    options: {
      soak: { type: 'string' },
      'gas-limit': { type: 'string' },
      'on-demand-only': { type: 'boolean', default: false },
    },
  });
  const count = (flag: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const number = Number(value);
    if (!Number.isSafeInteger(number) || number < 1)
      throw new Error(`--${flag} takes a positive integer, not ${value}`);
    return number;
  };
  const gasLimit = count('gas-limit', values['gas-limit']);
  return {
    soak: count('soak', values.soak),
    gasLimit: gasLimit === undefined ? DEFAULT_GAS_LIMIT : BigInt(gasLimit),
    onDemandOnly: values['on-demand-only'] === true,
  };
}

/**
 * Commit time p50 and p99 of the full blocks of one kind of transfer, and where it goes. The
 * 150 ms target is the p50's, and for blocks of the default gas limit: a larger block holds more
 * transactions.
 */
function printFullBlocks(kind: string, blocks: readonly BlockLine[], minTxs: number, defaults: boolean): void {
  const durations = blocks.map((block) => block.durationMs).sort((a, b) => a - b);
  const counts = `${blocks.length} blocks of ${blocks.map((block) => block.transactions).join(', ')} txs`;
  for (const p of [50, 99]) {
    const judged = defaults && p === 50;
    printMetric(
      `Block commit p${p}, ${kind} blocks with ≥ ${minTxs} txs`,
      'ms',
      judged ? '< 150' : undefined,
      judged ? (v) => v < 150 : undefined,
      [durations.length === 0 ? undefined : percentile(durations, p), undefined, counts, 'n/a (not measured)'],
    );
  }
  printPhases(kind, blocks);
}

/** The median of each phase of the full blocks' commits: where their time goes. */
function printPhases(kind: string, blocks: readonly BlockLine[]): void {
  if (blocks.length === 0) return;
  const phases = [
    'selectMs',
    'prefetchMs',
    'transactionsMs',
    'flushMs',
    'stateRootMs',
    'recordsMs',
    'writeMs',
  ] as const;
  const medians = phases.map((phase) => {
    const median = percentile(
      blocks.map((block) => block[phase]).sort((a, b) => a - b),
      50,
    );
    return `${phase.replace(/Ms$/, '')} ${median.toFixed(1)}`;
  });
  console.log(`${kind} full-block commit, p50 of each phase [ms]: ${medians.join(', ')}\n`);
}

/**
 * On-demand blocks (`block_time` "0s") against anvil's automine: sequential send-and-wait round
 * trips, {@link ON_DEMAND_RUNS} runs of each on fresh servers, the order alternating, so that a
 * slow spell of the machine does not decide the row by falling on one server's only run.
 */
async function reportOnDemand(repoRoot: string, anvil: string): Promise<void> {
  console.error(`on-demand: ${ON_DEMAND_RUNS} × ${ON_DEMAND_ROUNDS} send-and-wait round trips on each server…`);
  const runs = { evmnode: [] as RoundTrips[], anvil: [] as RoundTrips[] };
  for (let run = 0; run < ON_DEMAND_RUNS; run++) {
    for (const name of run % 2 === 0 ? (['evmnode', 'anvil'] as const) : (['anvil', 'evmnode'] as const)) {
      const server = await onDemandServer(name, repoRoot, anvil);
      runs[name].push(await sendAndWait(server, ON_DEMAND_ROUNDS, ON_DEMAND_WARM_UP));
    }
  }
  const [ours, peer] = [medianRun(runs.evmnode), medianRun(runs.anvil)];
  const note = (all: readonly RoundTrips[], median: RoundTrips) =>
    `runs ${all.map((trips) => trips.totalSeconds.toFixed(2)).join(' / ')} s; the median run's p50` +
    ` ${median.p50Ms.toFixed(2)} ms, p99 ${median.p99Ms.toFixed(2)} ms per round trip`;
  printMetric(
    `On demand: ${ON_DEMAND_ROUNDS} sequential send-and-wait round trips (after ${ON_DEMAND_WARM_UP}), median of ${ON_DEMAND_RUNS} runs`,
    's',
    "≤ anvil's",
    (seconds) => seconds <= peer.totalSeconds,
    [
      ours.totalSeconds,
      peer.totalSeconds,
      `${note(runs.evmnode, ours)}, block_time "0s"`,
      `${note(runs.anvil, peer)}, automine`,
    ],
  );
}

/** A fresh server for one on-demand run. */
function onDemandServer(name: 'evmnode' | 'anvil', repoRoot: string, anvil: string): Promise<ChainServer> {
  if (name === 'anvil') return startAnvil(anvil, ANVIL_CHAIN_ID, 0);
  // At the default log level, as anvil runs at its own: this row reads no block lines, and the
  // two debug lines of each block cost a round trip 0.1–0.3 ms (the node's writes, the bench's reads).
  return startEvmnode(repoRoot, '0s', ['--logging.level', 'info']);
}

/** The run of median total time. */
function medianRun(runs: readonly RoundTrips[]): RoundTrips {
  return [...runs].sort((a, b) => a.totalSeconds - b.totalSeconds)[runs.length >> 1]!;
}

/** Start-up, ETH then ERC20 ingestion, then peak RSS; stops the server whatever happened. */
async function measure(server: ChainServer): Promise<Figures> {
  try {
    const senders = await devSenders(server.url);
    await warmUp(server, senders);
    const eth = await phase(`${server.name}: ETH transfers`, async (deadline) =>
      ingest(server.url, await signEthTransfers(senders, server.chainId, ETH_PER_SENDER), IN_FLIGHT, deadline),
    );
    // Plain ETH transfers never run the EVM: untimed token transfers compile its paths first.
    const token = await phase(`${server.name}: ERC20 warm-up`, async (deadline) => {
      const deployed = await deployToken(server.url, server.chainId, senders, deadline);
      const txs = await signTokenTransfers(senders, server.chainId, deployed, WARM_UP_PER_SENDER);
      await ingest(server.url, txs, IN_FLIGHT, deadline);
      return deployed;
    });
    const erc20 = await phase(`${server.name}: ERC20 transfers`, async (deadline) => {
      const txs = await signTokenTransfers(senders, server.chainId, token, ERC20_PER_SENDER);
      return ingest(server.url, txs, IN_FLIGHT, deadline);
    });
    return { startupMs: server.startupMs, eth, erc20, rssBytes: await server.peakRssBytes(), blocks: server.blocks };
  } finally {
    await server.stop();
  }
}

/**
 * 3,000 ETH transfers submitted just after a block, so that the next blocks are full, then twice
 * 1,200 ERC20 transfers to new holders the same way; their commit times, after the warm-up of the
 * ingestion phases (for ERC20 blocks, the first 1,200). Blocks 5 s apart keep ingestion out of
 * them: commit under ingestion shows in the phases above.
 */
async function measureFullBlocks(server: ChainServer): Promise<FullBlocks> {
  const isFull = (block: BlockLine): boolean => block.transactions >= FULL_BLOCK_MIN_TXS;
  try {
    const senders = await devSenders(server.url);
    await warmUp(server, senders);
    const warmUpBlocks = server.blocks.length;
    await fullBlocksOf(server, 'ETH', () => signEthTransfers(senders, server.chainId, FULL_BLOCK_PER_SENDER));
    const ethBlocks = server.blocks.length;
    let token: string | undefined;
    const tokenTransfers = async (deadline: number) => {
      token ??= await deployToken(server.url, server.chainId, senders, deadline);
      return signTokenTransfers(senders, server.chainId, token, FULL_ERC20_BLOCK_PER_SENDER);
    };
    // Plain ETH transfers never run the EVM: the first token transfers are its warm-up.
    await fullBlocksOf(server, 'ERC20 (warm-up)', tokenTransfers);
    const erc20WarmUpBlocks = server.blocks.length;
    await fullBlocksOf(server, 'ERC20', tokenTransfers);
    const isFullOfErc20 = (block: BlockLine): boolean => block.transactions >= FULL_ERC20_BLOCK_MIN_TXS;
    return {
      cold: server.blocks.slice(0, warmUpBlocks).find(isFull),
      blocks: server.blocks.slice(warmUpBlocks, ethBlocks).filter(isFull),
      coldErc20: server.blocks.slice(ethBlocks, erc20WarmUpBlocks).find(isFullOfErc20),
      erc20Blocks: server.blocks.slice(erc20WarmUpBlocks).filter(isFullOfErc20),
      startupMs: server.startupMs,
      rssBytes: await server.peakRssBytes(),
    };
  } finally {
    await server.stop();
  }
}

/** Submits the transfers `sign` makes just after a block, and waits until the block of the last one is logged. */
async function fullBlocksOf(
  server: ChainServer,
  kind: string,
  sign: (deadline: number) => Promise<SignedTx[][]>,
): Promise<void> {
  const { receipts } = await phase(`${server.name}: full ${kind} blocks (5 s block time)`, async (deadline) => {
    const txs = await sign(deadline);
    const committed = server.blocks.length;
    while (server.blocks.length === committed) await sleep(5);
    return ingest(server.url, txs, IN_FLIGHT, deadline);
  });
  // The debug line is written just after the block's receipts become readable.
  const last = Math.max(...receipts.map((receipt) => Number(receipt.blockNumber)));
  while ((server.blocks.at(-1)?.height ?? 0) < last) await sleep(5);
}

/** 1,000 untimed ETH transfers: a node just started compiles its hot paths on them. */
async function warmUp(server: ChainServer, senders: readonly Sender[]): Promise<void> {
  await phase(`${server.name}: warm-up`, async (deadline) =>
    ingest(server.url, await signEthTransfers(senders, server.chainId, WARM_UP_PER_SENDER), IN_FLIGHT, deadline),
  );
}

/** Runs one phase with a deadline that its loops check, and aborts it if it still overruns. */
async function phase<T>(what: string, run: (deadline: number) => Promise<T>): Promise<T> {
  console.error(`${what}…`);
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: took more than ${PHASE_MS / 1000} s, aborted`)), PHASE_MS);
  });
  try {
    return await Promise.race([
      run(performance.now() + PHASE_MS).catch((error: unknown) => {
        throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }),
      overrun,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The longest interval of a phase and the block that ended it, with where that block's time went. */
function longestInterval({ longest: { intervalMs, block } }: Cadence): string {
  const ms = (value: number) => value.toFixed(0);
  return (
    `longest ${ms(intervalMs)} ms, to block ${block.height} (${block.transactions} txs${block.pipelined ? ', pipelined' : ''}:` +
    ` ${ms(block.durationMs)} ms, transactions ${ms(block.transactionsMs)}, wait ${ms(block.waitMs)},` +
    ` write ${ms(block.writeMs)}, held ${ms(block.heldMs)})`
  );
}

/** How the run went: timings, blocks and gas, and (evmnode) how long those blocks took to commit. */
function describe(run: Ingestion, lines: readonly BlockLine[]): string {
  const perBlock = new Map<number, number>();
  for (const { blockNumber } of run.receipts)
    perBlock.set(Number(blockNumber), (perBlock.get(Number(blockNumber)) ?? 0) + 1);
  const gas = run.receipts.reduce((sum, receipt) => sum + Number(receipt.gasUsed), 0) / run.receipts.length;
  const commits = lines.filter((line) => perBlock.has(line.height)).map((line) => line.durationMs);
  const commitNote =
    commits.length === 0
      ? ''
      : `, commit avg ${(commits.reduce((a, b) => a + b, 0) / commits.length).toFixed(0)} ms max ${Math.max(...commits).toFixed(0)} ms`;
  return (
    `${run.transactions} txs, all status 0x1, in ${run.totalSeconds.toFixed(2)} s (submitted in ${run.submitSeconds.toFixed(2)} s);` +
    ` ${perBlock.size} blocks of ${[...perBlock.values()].join('/')} txs${commitNote}; ${gas.toFixed(0)} gas/tx`
  );
}

/** One metric: evmnode (judged against the target), anvil and their ratio. */
function printMetric(
  title: string,
  unit: string,
  target: string | undefined,
  meets: ((value: number) => boolean) | undefined,
  [ours, peer, ourNote, peerNote]: [number | undefined, number | undefined, string, string],
): void {
  const figure = (value: number | undefined): string =>
    value === undefined ? 'n/a' : value.toFixed(value < 10 ? 2 : 1);
  const verdict = ours === undefined || meets === undefined ? '' : meets(ours) ? 'met' : 'MISSED';
  const ratio = ours !== undefined && peer !== undefined ? (ours / peer).toFixed(2) : 'n/a';
  const rows = [
    ['evmnode', figure(ours), verdict, ourNote],
    ['anvil', figure(peer), '', peerNote],
    ['evmnode/anvil', ratio, '', ''],
  ];
  console.log(`${title} [${unit}], ${target === undefined ? 'no target' : `target ${target} ${unit}`}`);
  for (const [name = '', value = '', check = '', note = ''] of rows)
    console.log(`  ${name.padEnd(13)}  ${value.padStart(8)}  ${check.padEnd(6)}  ${note}`.trimEnd());
  console.log();
}

try {
  await main();
} catch (error) {
  console.error(`bench:chain failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}

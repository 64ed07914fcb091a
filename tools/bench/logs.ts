/**
 * `npm run bench:logs [-- --blocks <n>] [-- --duration <s>]`: log queries, filter polls and
 * `newHeads` pushes of evmnode against anvil in the same run.
 *
 * Both chains get the same `n` blocks (default 2,000, the most a closed `eth_getLogs` range may
 * span), one transaction each, in which token A emits 5 Transfer and 20 Approval logs and token B
 * (a second instance) 25 Transfer logs: 50 logs a block. The queries ask for A's Transfers, 5 a
 * block, while A alone matches 25 a block and Transfer alone 30, so only an index on both is short.
 * - `eth_getLogs(A, Transfer)` over the whole closed range and over its last 100 blocks, asked by a
 *   client that accepts only plain answers and by one that accepts gzip: median and p95 of the time
 *   from sending the request to holding the whole HTTP body (parsing it is the client's cost, left
 *   out), the two servers taking turns; every answer must hold exactly the expected logs.
 * - `eth_getFilterChanges` on an installed (A, Transfer) filter while no block comes (each poll
 *   answers `[]`), polled over 32 keep-alive connections by autocannon.
 * - `newHeads` delivery over WebSocket: evmnode in-process, from the block's publication on the
 *   chain's event bus to the client's receipt, one 50-log transaction a block; anvil, which has no
 *   such hook, from sending `evm_mine` to the notification's arrival (mining included).
 * Each transaction is sent once the previous one has a receipt, so each lands in a block of its
 * own: evmnode is a child process with 20 ms blocks, no empty blocks and `evm.slow` (a send answers
 * once its transaction is committed); anvil automines.
 */
import { ContractFactory, getAddress, id as eventTopic, Interface } from 'ethers';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { startTestNode } from '@evmnode/core/testing';
import { compileToolContract, type CompiledContract } from '@evmnode/tools/contracts/compile';
import { readAnswer } from './chain-id-call.js';
import { receiptOf, rpc } from './chain-rpc.js';
import { startEvmnode, type ChainServer } from './chain-servers.js';
import { devSenders, ingest, sign, type Sender, type SignedTx } from './chain-workload.js';
import { percentile } from './load-result.js';
import { sampleHttpLoad, summarize, type HttpLoadResult, type HttpSamples, type PostedCall } from './http-load.js';
import { anvilBinary, startAnvil, type Target } from './targets.js';
import { formatTable } from './text-table.js';

/** Logs of each block's transaction: A's Transfers (the ones queried), A's Approvals, B's Transfers. */
const A_TRANSFERS = 5;
const A_APPROVALS = 20;
const B_TRANSFERS = 25;
const TRANSFER = eventTopic('Transfer(address,address,uint256)');
/** The short query's window: the last blocks of the range, as a client following the head asks. */
const WINDOW_BLOCKS = 100;
const QUERY_WARMUP = 3;
const QUERY_RUNS = 40;
/**
 * Least time between two query starts. evmnode lets queries over 100 blocks through at 30 a
 * second (-32005 beyond, as the reference node); the bench measures latency, not that limit.
 */
const QUERY_SPACING_MS = 40;
const QUERY_TIMEOUT_MS = 30_000;
/** evmnode's block time while the chain is filled; a transaction waits half of it on average. */
const INGEST_BLOCK_TIME = '20ms';
const INGEST_MS = 600_000;
/** Between receipt polls while a transaction waits for its block (evmnode answers a send once it is committed). */
const RECEIPT_POLL_MS = 2;
/** evmnode's block time while `newHeads` is measured. */
const HEADS_BLOCK_TIME_MS = 50;
const HEADS_WARMUP = 10;
const HEADS_RUNS = 250;
const HEAD_TIMEOUT_MS = 5_000;
const POLL_CONNECTIONS = 32;
const POLL_WARMUP_SECONDS = 2;
/** Turns each server takes at polling, so that a burst of other work on the machine lands on both. */
const POLL_SLICES = 5;
const GAS_LIMIT = 500_000n;
const SUBSCRIBE_ID = 1;

/** A server under test, filled with the same blocks as the other. */
interface Subject {
  readonly name: string;
  readonly url: string;
  /** Token A, lower-case. */
  readonly emitter: string;
  /** The heights of the first and last block of the range. */
  readonly first: number;
  readonly last: number;
  readonly ingestSeconds: number;
}

/** A closed range of the chain, the logs of A's Transfers it holds, and what the client accepts. */
interface QueryCase {
  readonly name: string;
  readonly range: (subject: Subject) => { readonly from: number; readonly to: number };
  readonly expected: number;
  readonly encoding: Encoding;
}

/**
 * What the client's `accept-encoding` offers. fetch (undici, so viem) offers gzip unless told
 * otherwise, and evmnode then compresses a large answer; a client that offers nothing gets it plain.
 */
type Encoding = 'identity' | 'gzip';
const ENCODINGS: readonly Encoding[] = ['identity', 'gzip'];

interface QueryFigures {
  readonly medianMs: number;
  readonly p95Ms: number;
  readonly bytes: number;
  /** The answer's `content-encoding`, `identity` when it has none. */
  readonly sentAs: string;
}

interface HeadFigures {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly count: number;
}

async function main(): Promise<void> {
  const { blocks, pollSeconds } = options();
  const window = Math.min(WINDOW_BLOCKS, blocks);
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const anvil = anvilBinary();
  const anvilVersion = execFileSync(anvil, ['--version'], { encoding: 'utf8' }).split('\n')[0]?.trim() ?? '?';
  const perBlock = A_TRANSFERS + A_APPROVALS + B_TRANSFERS;
  console.log(`machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}`);
  console.log(`peer: ${anvilVersion}`);
  console.log(
    `data: ${blocks} blocks of one transaction with ${perBlock} logs (${blocks * perBlock} in all); ` +
      `A+Transfer matches ${blocks * A_TRANSFERS}, A ${blocks * (A_TRANSFERS + A_APPROVALS)}, ` +
      `Transfer ${blocks * (A_TRANSFERS + B_TRANSFERS)}`,
  );
  const ranges = [
    {
      name: `${blocks} blocks`,
      range: ({ first, last }: Subject) => ({ from: first, to: last }),
      expected: blocks * A_TRANSFERS,
    },
    {
      name: `last ${window} blocks`,
      range: ({ last }: Subject) => ({ from: last - window + 1, to: last }),
      expected: window * A_TRANSFERS,
    },
  ];
  const cases: QueryCase[] = ranges.flatMap((range) => ENCODINGS.map((encoding) => ({ ...range, encoding })));

  const contract = compileToolContract('TokenEvents');
  const stops: (() => Promise<void>)[] = [];
  try {
    console.error('evmnode: starting (child process) and filling the chain…');
    const ours = await startEvmnode(repoRoot, INGEST_BLOCK_TIME, [
      '--evm.slow',
      'true',
      '--consensus.create_empty_blocks',
      'false',
    ]);
    stops.push(() => ours.stop());
    const oursSubject = await populate('evmnode', ours.url, ours.chainId, contract, blocks);
    const oursBlockMs = meanBlockMs(ours, oursSubject);

    console.error('anvil: starting (automine) and filling the chain…');
    const peer = await startAnvil(anvil);
    stops.push(() => peer.stop());
    const anvilSubject = await populate('anvil', peer.httpUrl, BigInt(peer.chainId), contract, blocks);

    const subjects = [oursSubject, anvilSubject];
    const queries = await measureQueries(subjects, cases);
    const polls = await measurePolls(subjects, pollSeconds);
    const peakRss = await ours.peakRssBytes();
    await ours.stop();

    console.error(`newHeads: evmnode in-process, ${HEADS_BLOCK_TIME_MS} ms blocks…`);
    const oursHeads = await evmnodeHeads(contract);
    console.error('newHeads: anvil, evm_mine…');
    const anvilHeads = await anvilHeadsAfterMine(peer);

    report({ subjects, cases, queries, polls, oursHeads, anvilHeads, oursBlockMs, peakRss, pollSeconds });
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

function options(): { blocks: number; pollSeconds: number } {
  const { values } = parseArgs({
    options: { blocks: { type: 'string', default: '2000' }, duration: { type: 'string', default: '5' } },
  });
  const blocks = Number(values.blocks);
  // A longer closed range is refused by evmnode (max_blocks_for_log).
  if (!Number.isSafeInteger(blocks) || blocks < 1 || blocks > 2000) throw new Error('--blocks must be 1 to 2000');
  const pollSeconds = Number(values.duration);
  if (!Number.isFinite(pollSeconds) || pollSeconds <= 0) throw new Error('--duration must be a positive number');
  return { blocks, pollSeconds };
}

/** Tokens A and B deployed by the first dev account, one transaction per block; their addresses. */
async function deployPair(url: string, chainId: bigint, sender: Sender, contract: CompiledContract, deadline: number) {
  const { data } = await new ContractFactory(contract.abi, contract.bytecode).getDeployTransaction();
  const deploys = [
    await sign(sender, chainId, { data, gasLimit: GAS_LIMIT }),
    await sign(sender, chainId, { data, gasLimit: GAS_LIMIT }),
  ];
  const { receipts } = await ingest(url, [deploys], 1, deadline);
  const [a, b] = receipts.map(({ contractAddress }) => contractAddress);
  if (a == null || b == null) throw new Error('a TokenEvents deployment has no contract address');
  return { a: a.toLowerCase(), b: b.toLowerCase() };
}

/** `count` signed calls of A's `emitEvents`, each emitting one block's logs. */
async function signEmissions(sender: Sender, chainId: bigint, a: string, b: string, count: number) {
  const tokenEvents = new Interface(tokenEventsAbi);
  const data = tokenEvents.encodeFunctionData('emitEvents', [getAddress(b), A_TRANSFERS, A_APPROVALS, B_TRANSFERS]);
  const txs: SignedTx[] = [];
  for (let index = 0; index < count; index++)
    txs.push(await sign(sender, chainId, { to: a, data, gasLimit: GAS_LIMIT }));
  return txs;
}

const tokenEventsAbi = [
  'function emitEvents(address other, uint256 transfers, uint256 approvals, uint256 otherTransfers)',
];

/**
 * Deploys A and B, then sends the emitting transactions one at a time, each once the previous one
 * has a receipt (anvil's automine puts two transactions that arrive close together in one block);
 * checks that they landed in consecutive blocks, one each.
 */
async function populate(
  name: string,
  url: string,
  chainId: bigint,
  contract: CompiledContract,
  blocks: number,
): Promise<Subject> {
  const [sender] = await devSenders(url);
  if (sender === undefined) throw new Error('no dev account');
  const { a, b } = await deployPair(url, chainId, sender, contract, performance.now() + INGEST_MS);
  const txs = await signEmissions(sender, chainId, a, b, blocks);
  const started = performance.now();
  const heights = await sendOneByOne(url, txs, started + INGEST_MS);
  const ingestSeconds = (performance.now() - started) / 1000;
  const first = heights[0]!;
  heights.forEach((height, index) => {
    if (height !== first + index)
      throw new Error(`${name}: transaction ${index} landed in block ${height}, not ${first + index}`);
  });
  console.error(`${name}: ${blocks} blocks in ${ingestSeconds.toFixed(1)} s`);
  return { name, url, emitter: a, first, last: first + blocks - 1, ingestSeconds };
}

/** Sends each transaction once the previous one has a successful receipt; the blocks they landed in. */
async function sendOneByOne(url: string, txs: readonly SignedTx[], deadline: number): Promise<number[]> {
  const heights: number[] = [];
  for (const { raw, hash } of txs) {
    const sent = await rpc<string>(url, 'eth_sendRawTransaction', [raw]);
    if (sent !== hash) throw new Error(`eth_sendRawTransaction answered ${sent}, expected ${hash}`);
    let receipt = await receiptOf(url, hash);
    while (receipt === null) {
      if (performance.now() > deadline) throw new Error(`no receipt for ${hash} at the deadline`);
      await sleep(RECEIPT_POLL_MS);
      receipt = await receiptOf(url, hash);
    }
    if (receipt.status !== '0x1') throw new Error(`transaction ${hash} failed: status ${receipt.status}`);
    heights.push(Number(receipt.blockNumber));
  }
  return heights;
}

/** evmnode's mean production time of the range's blocks, from its `block committed` lines. */
function meanBlockMs(server: ChainServer, subject: Subject): number {
  const lines = server.blocks.filter(({ height }) => height >= subject.first && height <= subject.last);
  return lines.reduce((total, { durationMs }) => total + durationMs, 0) / lines.length;
}

/**
 * Every query case on every server: warm-up queries first, then the servers take turns, so that
 * whatever else runs on the machine weighs on both alike. Figures by case, then by server name.
 */
async function measureQueries(
  subjects: readonly Subject[],
  cases: readonly QueryCase[],
): Promise<Map<QueryCase, Map<string, QueryFigures>>> {
  const figures = new Map<QueryCase, Map<string, QueryFigures>>();
  let lastStart = 0;
  const paced = async (subject: Subject, queryCase: QueryCase) => {
    const wait = lastStart + QUERY_SPACING_MS - performance.now();
    if (wait > 0) await sleep(wait);
    lastStart = performance.now();
    return timedLogs(subject, queryCase);
  };
  for (const queryCase of cases) {
    console.error(
      `eth_getLogs over ${queryCase.name}, accept-encoding ${queryCase.encoding}: ${QUERY_WARMUP} warm-up and ${QUERY_RUNS} measured each`,
    );
    const samples = new Map(subjects.map((subject) => [subject, [] as number[]]));
    const answers = new Map<Subject, { bytes: number; sentAs: string }>();
    for (const subject of subjects) for (let run = 0; run < QUERY_WARMUP; run++) await paced(subject, queryCase);
    for (let run = 0; run < QUERY_RUNS; run++) {
      for (const subject of subjects) {
        const timed = await paced(subject, queryCase);
        samples.get(subject)!.push(timed.ms);
        answers.set(subject, timed);
      }
    }
    figures.set(
      queryCase,
      new Map(
        subjects.map((subject) => {
          const sorted = sortedCopy(samples.get(subject)!);
          const result = {
            medianMs: percentile(sorted, 50),
            p95Ms: percentile(sorted, 95),
            ...answers.get(subject)!,
          };
          return [subject.name, result];
        }),
      ),
    );
  }
  return figures;
}

/** One `eth_getLogs(A, Transfer)` over the case's range; fails unless it holds exactly A's Transfers. */
async function timedLogs(
  subject: Subject,
  queryCase: QueryCase,
): Promise<{ ms: number; bytes: number; sentAs: string }> {
  const { from, to } = queryCase.range(subject);
  const filter = { fromBlock: hex(from), toBlock: hex(to), address: subject.emitter, topics: [TRANSFER] };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] });
  const started = performance.now();
  const response = await fetch(subject.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-encoding': queryCase.encoding },
    body,
    signal: AbortSignal.timeout(QUERY_TIMEOUT_MS),
  });
  const bytes = await response.arrayBuffer();
  const ms = performance.now() - started;
  const text = Buffer.from(bytes).toString('utf8');
  const answer = readAnswer(text);
  const where = `${subject.name} eth_getLogs over ${queryCase.name}`;
  if (answer?.error !== undefined) throw new Error(`${where}: error ${JSON.stringify(answer.error)}`);
  const logs = answer?.result;
  if (!Array.isArray(logs)) throw new Error(`${where}: not an array of logs: ${text.slice(0, 200)}`);
  if (logs.length !== queryCase.expected)
    throw new Error(`${where}: ${logs.length} logs, expected ${queryCase.expected}`);
  for (const log of logs as readonly { address?: string; topics?: readonly string[] }[]) {
    if (log.address?.toLowerCase() !== subject.emitter || log.topics?.[0] !== TRANSFER)
      throw new Error(`${where}: a log that does not match: ${JSON.stringify(log)}`);
  }
  return { ms, bytes: bytes.byteLength, sentAs: response.headers.get('content-encoding') ?? 'identity' };
}

/**
 * `eth_getFilterChanges` throughput on a freshly installed (A, Transfer) filter of each server; no
 * block comes while polling, so each right answer is `[]`. The servers take turns as for queries.
 */
async function measurePolls(subjects: readonly Subject[], seconds: number): Promise<Map<string, HttpLoadResult>> {
  const turns: { subject: Subject; call: PostedCall; runs: HttpSamples[] }[] = [];
  for (const subject of subjects) {
    const filterId = await rpc<string>(subject.url, 'eth_newFilter', [
      { address: subject.emitter, topics: [TRANSFER] },
    ]);
    const call = pollCall(filterId);
    console.error(`${subject.name} eth_getFilterChanges: warming up`);
    await sampleHttpLoad(subject.url, call, POLL_CONNECTIONS, POLL_WARMUP_SECONDS);
    turns.push({ subject, call, runs: [] });
  }
  console.error(`eth_getFilterChanges: measuring ${seconds} s on each server, in ${POLL_SLICES} turns`);
  for (let slice = 0; slice < POLL_SLICES; slice++)
    for (const { subject, call, runs } of turns)
      runs.push(await sampleHttpLoad(subject.url, call, POLL_CONNECTIONS, seconds / POLL_SLICES));
  return new Map(turns.map(({ subject, runs }) => [subject.name, summarize(runs)]));
}

function pollCall(filterId: string): PostedCall {
  return {
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getFilterChanges', params: [filterId] }),
    problem: (text) => {
      const answer = readAnswer(text);
      if (answer?.id !== 1) return `not an answer to id 1: ${text.slice(0, 200)}`;
      if (answer.error !== undefined) return `error ${JSON.stringify(answer.error).slice(0, 200)}`;
      return Array.isArray(answer.result) && answer.result.length === 0 ? undefined : `not []: ${text.slice(0, 200)}`;
    },
  };
}

/**
 * evmnode in this process with `HEADS_BLOCK_TIME_MS` blocks: each block's publication on the chain's
 * event bus against its `newHeads` notification's arrival at a WebSocket client. Each head sends one
 * emitting transaction, so that blocks carry 50 logs as in the queried range.
 */
async function evmnodeHeads(contract: CompiledContract): Promise<HeadFigures> {
  const test = await startTestNode({ config: { consensus: { block_time: HEADS_BLOCK_TIME_MS } } });
  let stopListening = (): void => {};
  let socket: WebSocket | undefined;
  try {
    const chainId = BigInt(await rpc<string>(test.url, 'eth_chainId'));
    const [sender] = await devSenders(test.url);
    if (sender === undefined) throw new Error('no dev account');
    const { a, b } = await deployPair(test.url, chainId, sender, contract, performance.now() + INGEST_MS);
    const txs = await signEmissions(sender, chainId, a, b, HEADS_WARMUP + HEADS_RUNS);

    // The subscriptions plugin listened first, so its synchronous part of the push (formatting the
    // header, writing the frame) runs before this mark; the delivery itself is all after it.
    const publishedAt = new Map<number, number>();
    stopListening = test.node.chain.events.onBlock(({ block }) => publishedAt.set(block.height, performance.now()));
    const latencies: number[] = [];
    const done = new Promise<void>((resolve, reject) => {
      let expected: number | undefined;
      let next = 0;
      const onHead = (height: number, at: number): void => {
        const published = publishedAt.get(height);
        publishedAt.delete(height);
        if (published === undefined) return reject(new Error(`newHeads for block ${height} before its publication`));
        if (expected !== undefined && height !== expected)
          return reject(new Error(`newHeads skipped from block ${expected - 1} to ${height}`));
        expected = height + 1;
        if (next >= HEADS_WARMUP) latencies.push(at - published);
        if (latencies.length >= HEADS_RUNS) return resolve();
        const tx = txs[next++];
        if (tx !== undefined) rpc<string>(test.url, 'eth_sendRawTransaction', [tx.raw]).catch(reject);
      };
      newHeadsSocket(test.wsUrl, onHead).then((opened) => (socket = opened), reject);
    });
    const limitMs = (HEADS_WARMUP + HEADS_RUNS) * HEADS_BLOCK_TIME_MS * 4 + 30_000;
    const timeout = sleep(limitMs, undefined, { ref: false }).then(() => {
      throw new Error(`evmnode sent ${latencies.length} of ${HEADS_RUNS} measured heads in ${limitMs} ms`);
    });
    await Promise.race([done, timeout]);
    return headFigures(latencies);
  } finally {
    stopListening();
    socket?.terminate();
    await test.stop();
  }
}

/** anvil: the time from sending `evm_mine` (HTTP) to the block's `newHeads` notification (WebSocket). */
async function anvilHeadsAfterMine(peer: Target): Promise<HeadFigures> {
  let arrived: (head: { height: number; at: number }) => void = () => {};
  const socket = await newHeadsSocket(peer.wsUrl, (height, at) => arrived({ height, at }));
  try {
    const latencies: number[] = [];
    for (let run = 0; run < HEADS_WARMUP + HEADS_RUNS; run++) {
      const head = new Promise<{ height: number; at: number }>((resolve) => (arrived = resolve));
      const sent = performance.now();
      await rpc<string>(peer.httpUrl, 'evm_mine');
      const timeout = sleep(HEAD_TIMEOUT_MS, undefined, { ref: false }).then(() => {
        throw new Error(`anvil sent no newHeads within ${HEAD_TIMEOUT_MS} ms of evm_mine`);
      });
      const { at } = await Promise.race([head, timeout]);
      if (run >= HEADS_WARMUP) latencies.push(at - sent);
    }
    return headFigures(latencies);
  } finally {
    socket.terminate();
  }
}

/** A WebSocket subscribed to `newHeads`; `onHead` gets each head's height and arrival time. */
async function newHeadsSocket(url: string, onHead: (height: number, at: number) => void): Promise<WebSocket> {
  // No compression: the bench measures delivery, not deflate.
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await once(socket, 'open');
  const subscribed = new Promise<void>((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      const at = performance.now();
      const message = JSON.parse(data.toString('utf8')) as {
        id?: number;
        error?: unknown;
        method?: string;
        params?: { result?: { number?: string } };
      };
      if (message.method === 'eth_subscription') onHead(Number(message.params?.result?.number), at);
      else if (message.id === SUBSCRIBE_ID)
        if (message.error === undefined) resolve();
        else reject(new Error(`eth_subscribe: ${JSON.stringify(message.error)}`));
    });
  });
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: SUBSCRIBE_ID, method: 'eth_subscribe', params: ['newHeads'] }));
  await subscribed;
  return socket;
}

function headFigures(latencies: readonly number[]): HeadFigures {
  const sorted = sortedCopy(latencies);
  return {
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    count: sorted.length,
  };
}

const sortedCopy = (values: readonly number[]): Float64Array => Float64Array.from(values).sort();

const hex = (value: number): string => `0x${value.toString(16)}`;
const ms = (value: number): string => (Number.isNaN(value) ? '-' : value.toFixed(2));
const ratio = (ours: number | undefined, theirs: number | undefined): string =>
  ours === undefined || theirs === undefined ? 'n/a' : (ours / theirs).toFixed(2);

interface Report {
  readonly subjects: readonly Subject[];
  readonly cases: readonly QueryCase[];
  readonly queries: Map<QueryCase, Map<string, QueryFigures>>;
  readonly polls: Map<string, HttpLoadResult>;
  readonly oursHeads: HeadFigures;
  readonly anvilHeads: HeadFigures;
  readonly oursBlockMs: number;
  readonly peakRss: number;
  readonly pollSeconds: number;
}

function report(figures: Report): void {
  const { subjects, cases, queries, polls, oursHeads, anvilHeads } = figures;
  const [ours, anvil] = subjects;
  const print = (lines: readonly string[]): void => console.log(['', ...lines].join('\n'));

  print([
    `ingestion: evmnode ${ours!.ingestSeconds.toFixed(1)} s (${INGEST_BLOCK_TIME} blocks, evm.slow, ` +
      `mean block production ${figures.oursBlockMs.toFixed(1)} ms), anvil ${anvil!.ingestSeconds.toFixed(1)} s (automine)`,
  ]);

  const queryRows = cases.flatMap((queryCase) =>
    subjects.map(({ name }) => {
      const result = queries.get(queryCase)!.get(name)!;
      return [
        queryCase.name,
        queryCase.encoding,
        name,
        result.sentAs,
        String(queryCase.expected),
        (result.bytes / 2 ** 20).toFixed(2),
        ms(result.medianMs),
        ms(result.p95Ms),
      ];
    }),
  );
  print([
    `eth_getLogs(address A, topic0 Transfer), closed ranges, ${QUERY_RUNS} runs per row after ${QUERY_WARMUP} warm-up; ` +
      'time from the request to the whole HTTP body, decoded (MiB: the JSON text)',
    ...formatTable(
      ['range', 'accepts', 'server', 'sent as', 'logs', 'MiB', 'median ms', 'p95 ms'],
      queryRows,
      'llllrrrr',
    ),
  ]);

  const headRows = [
    ['evmnode', `block published -> client (in-process, ${HEADS_BLOCK_TIME_MS} ms blocks of 50 logs)`, oursHeads],
    ['anvil', 'evm_mine sent -> client (mining included)', anvilHeads],
  ] as const;
  print([
    'newHeads over WebSocket',
    ...formatTable(
      ['server', 'measured', 'heads', 'p50 ms', 'p99 ms', 'max ms'],
      headRows.map(([name, what, head]) => [
        name,
        what,
        String(head.count),
        ms(head.p50Ms),
        ms(head.p99Ms),
        ms(head.maxMs),
      ]),
      'llrrrr',
    ),
  ]);

  const pollRows = subjects.map(({ name }) => {
    const result = polls.get(name)!;
    const row = [name, result.requestsPerSecond.toFixed(0), ms(result.p50Ms), ms(result.p99Ms), String(result.errors)];
    return row;
  });
  print([
    `eth_getFilterChanges on an (A, Transfer) filter, no new blocks: ${POLL_CONNECTIONS} keep-alive connections, ` +
      `${POLL_WARMUP_SECONDS} s warm-up, ${figures.pollSeconds} s measured in ${POLL_SLICES} turns`,
    ...formatTable(['server', 'polls/s', 'p50 ms', 'p99 ms', 'errors'], pollRows, 'lrrrr'),
  ]);

  const ratioRows = [
    ...cases.flatMap((queryCase) => {
      const mine = queries.get(queryCase)?.get('evmnode');
      const theirs = queries.get(queryCase)?.get('anvil');
      return [
        [`eth_getLogs ${queryCase.name} (${queryCase.encoding}), median`, ratio(mine?.medianMs, theirs?.medianMs)],
        [`eth_getLogs ${queryCase.name} (${queryCase.encoding}), p95`, ratio(mine?.p95Ms, theirs?.p95Ms)],
      ];
    }),
    ['newHeads p50', ratio(oursHeads.p50Ms, anvilHeads.p50Ms)],
    ['newHeads p99', ratio(oursHeads.p99Ms, anvilHeads.p99Ms)],
    [
      'eth_getFilterChanges polls/s',
      ratio(polls.get('evmnode')?.requestsPerSecond, polls.get('anvil')?.requestsPerSecond),
    ],
  ];
  print([
    'ratios evmnode/anvil (latency: lower is better; polls/s: higher is better)',
    ...formatTable(['figure', 'evmnode/anvil'], ratioRows, 'lr'),
  ]);

  const met = (yes: boolean): string => (yes ? 'yes' : 'NO');
  const longRange = cases.filter(({ name }) => name === cases[0]!.name);
  const targets = [
    ...longRange.flatMap((queryCase) => {
      const mine = queries.get(queryCase)?.get('evmnode')?.medianMs ?? Infinity;
      const theirs = queries.get(queryCase)?.get('anvil')?.medianMs ?? -Infinity;
      const which = `eth_getLogs ${queryCase.name} (${queryCase.encoding}) median`;
      return [
        [`${which} < 150 ms`, met(mine < 150)],
        [`${which} <= anvil's`, met(mine <= theirs)],
      ];
    }),
    ['newHeads p99 < 20 ms', met(oursHeads.p99Ms < 20)],
  ];
  print([
    ...formatTable(['target', 'met'], targets, 'll'),
    '',
    `evmnode peak RSS: ${Math.round(figures.peakRss / 2 ** 20)} MB`,
  ]);
  if ([...polls.values()].some((result) => result.errors > 0)) {
    print([...polls].flatMap(([name, result]) => (result.errors > 0 ? [`${name} polls: ${result.firstProblem}`] : [])));
    process.exitCode = 1;
  }
}

try {
  await main();
} catch (error) {
  console.error(`bench:logs failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
}

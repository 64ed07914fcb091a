/**
 * `npm run bench:follower [-- --blocks N]`: a follower replicating a producer, both child
 * processes on this machine.
 *
 * 1. Build: a producer with 20 ms blocks makes a chain of N blocks (10,000 by default), the first
 *    ones full of ETH transfers (9,000 sent at 32 in flight); its own rate is the figure catch-up
 *    is compared with.
 * 2. Catch-up: a fresh public follower (`--profile follower-public`) replicates the whole chain;
 *    blocks/s and transactions/s from its start to its reaching the chain's height.
 * 3. Live lag: the producer, restarted on its home with 400 ms blocks, goes on (a transfer
 *    arriving every 50 ms); for each of its blocks,
 *    the time from its commit on the producer to its commit on the follower (both from their
 *    debug logs' times, one clock), p50 and p99.
 * 4. Reads: `eth_getBalance` at 32 in flight (autocannon) for 30 s on each of the follower and the
 *    producer, in alternating turns of 1 s.
 * 5. Full blocks: a second producer with 1 s blocks makes 25 blocks of 595 transfers (a
 *    12.5M-gas block's worth); a fresh follower replicates them, and its rate on the last 15, from
 *    the commit of the first to that of the last, is compared with the 2.5 blocks a second that
 *    400 ms blocks produce.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { blockNumber, rpc } from './chain-rpc.js';
import { startEvmnode, type BlockLine, type ChainServer } from './chain-servers.js';
import { devSenders, signEthTransfers, type Sender } from './chain-workload.js';
import { freePort } from './child-processes.js';
import { sampleHttpLoad, summarize, type HttpLoadResult, type HttpSamples, type PostedCall } from './http-load.js';
import { percentile } from './load-result.js';

const IN_FLIGHT = 32;
/**
 * Each server's rate moves between about 9,000 and 18,000 reads a second from one 1 s turn to the
 * next on this machine; 30 turns each keep the ratio's spread from run to run a few percent.
 */
const READ_SECONDS = 30;
/** The read seconds are split into this many turns on each server, alternating. */
const READ_TURNS = 30;
const LIVE_BLOCKS = 100;
/** Transfers each dev account signs: 9,000 at most go into the build, the rest into the live phase. */
const TRANSFERS_PER_SENDER = 1_000;
const BUILD_TRANSFERS = 9_000;
/** The live phase's transfers: one every this many ms, a steady trickle into 400 ms blocks. */
const LIVE_PACE_MS = 50;
/** The transfers a block of the default gas limit holds. */
const FULL_BLOCK_CAPACITY = 595;
/** Full blocks a fresh follower replicates before its rate on them is measured, and how many are measured. */
const WARM_UP_FULL_BLOCKS = 10;
const MEASURED_FULL_BLOCKS = 15;
/** Transfers sent ahead of the full blocks' producer: several blocks' worth, under its pool's 5,000. */
const FULL_BLOCK_BACKLOG = 3_000;
/** Full blocks a second at the default cadence, what the full-block catch-up is compared with. */
const CADENCE_FULL_BLOCKS_PER_SECOND = 1000 / 400;

interface Streamed {
  /** Stops the stream; resolves to how many transfers were sent. */
  stop(): Promise<number>;
  /** Resolves to how many transfers were sent once the limit is reached or the transfers run out. */
  finished(): Promise<number>;
}

/**
 * Pre-signed transfers sent to `url` until stopped or `limit` are sent: `IN_FLIGHT` at a time
 * without pause, or one every `paceMs`.
 */
function streamTransfers(url: string, raws: string[], limit: number, paceMs?: number): Streamed {
  let stopped = false;
  let sent = 0;
  const lane = async () => {
    while (!stopped && sent < limit && raws.length > 0) {
      sent++;
      await rpc(url, 'eth_sendRawTransaction', [raws.shift()]);
      if (paceMs !== undefined) await sleep(paceMs);
    }
  };
  const lanes = Array.from({ length: paceMs === undefined ? IN_FLIGHT : 1 }, lane);
  const finished = async () => {
    await Promise.all(lanes);
    return sent;
  };
  return {
    stop: () => {
      stopped = true;
      return finished();
    },
    finished,
  };
}

/** Transfers in an order that keeps each sender's nonces in sequence. */
async function transferQueue(senders: readonly Sender[], chainId: bigint, perSender: number): Promise<string[]> {
  const bySender = await signEthTransfers(senders, chainId, perSender);
  return Array.from({ length: perSender }, (_, nonce) => bySender.map((txs) => txs[nonce]!.raw)).flat();
}

/**
 * `eth_getBalance` on each server through autocannon (as `bench:methods` measures), in turns so that
 * other work on the machine lands on both, after a turn on each that is not counted: the first
 * turn of a process, the client's or a server's, runs code not yet compiled (about half the rate).
 */
async function readRates(servers: readonly ChainServer[], address: string): Promise<HttpLoadResult[]> {
  const call: PostedCall = {
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [address, 'latest'] }),
    problem: (body) => (/"result":"0x[0-9a-f]+"/.test(body) ? undefined : `not a balance: ${body.slice(0, 200)}`),
  };
  for (const server of servers) await sampleHttpLoad(server.url, call, IN_FLIGHT, READ_SECONDS / READ_TURNS);
  const runs: HttpSamples[][] = servers.map(() => []);
  for (let turn = 0; turn < READ_TURNS; turn++)
    for (const [index, server] of servers.entries())
      runs[index]!.push(await sampleHttpLoad(server.url, call, IN_FLIGHT, READ_SECONDS / READ_TURNS));
  return runs.map(summarize);
}

/**
 * A follower's rate on full blocks: a producer with 1 s blocks (so that each takes a full block's
 * worth of the pool) is sent enough transfers for `WARM_UP_FULL_BLOCKS` + `MEASURED_FULL_BLOCKS`
 * full blocks, then a fresh public follower replicates its chain. Its rate is counted from the
 * commit of its first measured full block to that of its last: the first ones run on code not yet
 * compiled, as `bench:chain` warms its nodes up before it measures. Also resolves to the rate
 * over every full block, warm-up included.
 */
async function fullBlockCatchUp(repoRoot: string): Promise<{ warm: number; all: number }> {
  const gatewayPort = await freePort();
  const home = await mkdtemp(join(tmpdir(), 'evmnode-follower-bench-full-'));
  const producer = await startEvmnode(repoRoot, '1s', ['--home', home, '--native.rpc_port', String(gatewayPort)]);
  let follower: ChainServer | undefined;
  try {
    const senders = await devSenders(producer.url);
    const transfers = (WARM_UP_FULL_BLOCKS + MEASURED_FULL_BLOCKS) * FULL_BLOCK_CAPACITY;
    const queue = await transferQueue(senders, producer.chainId, Math.ceil(transfers / senders.length));
    const built = async () => transactionsUpTo(producer, await blockNumber(producer.url));
    // The pool holds 5,000 transactions: they go in as blocks make room, a few blocks' worth ahead.
    for (let sent = 0; sent < transfers; sent += FULL_BLOCK_BACKLOG / 2) {
      while (sent - (await built()) > FULL_BLOCK_BACKLOG) await sleep(100);
      await streamTransfers(producer.url, queue, FULL_BLOCK_BACKLOG / 2).finished();
    }
    while ((await built()) < transfers) await sleep(200);
    const upstream = ['--profile', 'follower-public', '--follower.upstream', `http://127.0.0.1:${gatewayPort}`];
    upstream.push('--follower.upstream_rpc', producer.url, '--native.rpc_port', '0');
    follower = await startEvmnode(repoRoot, '400ms', upstream);
    const height = await blockNumber(producer.url);
    while ((await blockNumber(follower.url)) < height) await sleep(20);
    const full = follower.blocks.filter((block) => block.transactions === FULL_BLOCK_CAPACITY);
    const rate = (blocks: readonly BlockLine[]) =>
      (blocks.length - 1) / ((blocks.at(-1)!.time - blocks[0]!.time) / 1000);
    return { warm: rate(full.slice(WARM_UP_FULL_BLOCKS)), all: rate(full) };
  } finally {
    await Promise.all([follower?.stop(), producer.stop()]);
    await rm(home, { recursive: true, force: true });
  }
}

function transactionsUpTo(server: ChainServer, height: number): number {
  return server.blocks.filter((block) => block.height <= height).reduce((sum, block) => sum + block.transactions, 0);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { blocks: { type: 'string', default: '10000' } } });
  const target = Number(values.blocks);
  if (!Number.isSafeInteger(target) || target < 10)
    throw new Error(`--blocks takes an integer ≥ 10, not ${values.blocks}`);
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const gatewayPort = await freePort();
  // The producer's home outlives its first process: the chain is built fast, then served at 400 ms.
  const home = await mkdtemp(join(tmpdir(), 'evmnode-follower-bench-'));
  const producerOn = (blockTime: string) =>
    startEvmnode(repoRoot, blockTime, ['--home', home, '--native.rpc_port', String(gatewayPort)]);
  let producer = await producerOn('20ms');
  let follower: ChainServer | undefined;
  try {
    const senders = await devSenders(producer.url);
    const queue = await transferQueue(senders, producer.chainId, TRANSFERS_PER_SENDER);

    console.error(`build: ${target} blocks of 20 ms…`);
    const buildStart = performance.now();
    let stream = streamTransfers(producer.url, queue, BUILD_TRANSFERS);
    while ((await blockNumber(producer.url)) < target) await sleep(200);
    const buildSeconds = (performance.now() - buildStart) / 1000;
    await stream.stop();
    const built = await blockNumber(producer.url);
    const builtTransactions = transactionsUpTo(producer, built);
    await producer.stop();
    producer = await producerOn('400ms');

    console.error('catch-up: a fresh follower replicates the chain…');
    // A public follower, as docs/operations.md deploys them behind the balancer.
    const upstream = ['--profile', 'follower-public', '--follower.upstream', `http://127.0.0.1:${gatewayPort}`];
    upstream.push('--follower.upstream_rpc', producer.url, '--native.rpc_port', '0');
    const catchUpStart = performance.now();
    follower = await startEvmnode(repoRoot, '400ms', upstream);
    while ((await blockNumber(follower.url)) < built) await sleep(20);
    const catchUpSeconds = (performance.now() - catchUpStart) / 1000;
    while ((await blockNumber(follower.url)) < (await blockNumber(producer.url))) await sleep(20);

    console.error(`live: ${LIVE_BLOCKS} blocks…`);
    const liveFrom = (await blockNumber(producer.url)) + 1;
    stream = streamTransfers(producer.url, queue, queue.length, LIVE_PACE_MS);
    while ((await blockNumber(follower.url)) < liveFrom + LIVE_BLOCKS) await sleep(50);
    await stream.stop();
    const producedAt = new Map(producer.blocks.map((block: BlockLine) => [block.height, block.time]));
    const lags = follower.blocks
      .filter((block) => block.height >= liveFrom && block.height < liveFrom + LIVE_BLOCKS)
      .map((block) => block.time - producedAt.get(block.height)!)
      .sort((a, b) => a - b);

    console.error('reads…');
    const address = senders[0]!.wallet.address;
    const [followerReads, producerReads] = (await readRates([follower, producer], address)) as [
      HttpLoadResult,
      HttpLoadResult,
    ];

    await Promise.all([follower.stop(), producer.stop()]);
    follower = undefined;
    console.error(
      `full blocks: a follower replicates ${WARM_UP_FULL_BLOCKS + MEASURED_FULL_BLOCKS} blocks of 595 transfers…`,
    );
    const full = await fullBlockCatchUp(repoRoot);

    const producerBlocksPerSecond = built / buildSeconds;
    const catchUpBlocksPerSecond = built / catchUpSeconds;
    console.log(`chain: ${built} blocks holding ${builtTransactions} transfers`);
    console.log(
      `producer, building it: ${producerBlocksPerSecond.toFixed(1)} blocks/s, ${(builtTransactions / buildSeconds).toFixed(0)} tx/s`,
    );
    console.log(
      `follower catch-up: ${catchUpBlocksPerSecond.toFixed(1)} blocks/s, ${(builtTransactions / catchUpSeconds).toFixed(0)} tx/s ` +
        `(${(catchUpBlocksPerSecond / producerBlocksPerSecond).toFixed(2)}x the producer's rate; target ≥ 3x)`,
    );
    console.log(
      `live lag, producer commit to follower commit, ${lags.length} blocks: p50 ${percentile(lags, 50).toFixed(0)} ms, ` +
        `p99 ${percentile(lags, 99).toFixed(0)} ms (target p99 < 100 ms)`,
    );
    const readRate = ({ requestsPerSecond, errors }: HttpLoadResult) =>
      `${requestsPerSecond.toFixed(0)}/s${errors > 0 ? ` (${errors} errors)` : ''}`;
    console.log(
      `eth_getBalance at ${IN_FLIGHT} in flight, ${READ_TURNS} alternating turns: follower ${readRate(followerReads)}, ` +
        `producer ${readRate(producerReads)} ` +
        `(${(followerReads.requestsPerSecond / producerReads.requestsPerSecond).toFixed(2)}x; target ≥ 0.9x)`,
    );
    console.log(
      `follower on full blocks of ${FULL_BLOCK_CAPACITY} transfers: ${full.warm.toFixed(1)} blocks/s over ` +
        `${MEASURED_FULL_BLOCKS} after ${WARM_UP_FULL_BLOCKS} of warm-up ` +
        `(${(full.warm / CADENCE_FULL_BLOCKS_PER_SECOND).toFixed(2)}x the ${CADENCE_FULL_BLOCKS_PER_SECOND} full blocks/s ` +
        `of 400 ms blocks; target ≥ 3x); ${full.all.toFixed(1)} blocks/s over all ${WARM_UP_FULL_BLOCKS + MEASURED_FULL_BLOCKS}`,
    );
  } finally {
    await Promise.all([follower?.stop(), producer.stop()]);
    await rm(home, { recursive: true, force: true });
  }
}

await main();

/**
 * The servers the chain bench drives: evmnode (with its per-block debug log read from stdout) and
 * anvil with a block time, each timed from spawn to its first answered `eth_chainId`.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { rpc } from './chain-rpc.js';
import { evmnodeCli, exitBeforeReady, freePort, spawnChild, stopChild } from './child-processes.js';

/** One `block committed` debug line of evmnode. */
export interface BlockLine {
  readonly height: number;
  readonly transactions: number;
  readonly gasUsed: number;
  readonly durationMs: number;
  /** Where the block's time went (ms), in the order the producer spends it. */
  readonly selectMs: number;
  readonly prefetchMs: number;
  readonly transactionsMs: number;
  readonly flushMs: number;
  readonly stateRootMs: number;
  readonly recordsMs: number;
  readonly writeMs: number;
  /** A pipelined block's wait, after its records, for the block before it to be written. */
  readonly waitMs: number;
  /** How long the committed block was held until its time to be published. */
  readonly heldMs: number;
  /** Whether it started on the state of the block before it while that one waited for its time. */
  readonly pipelined: boolean;
  /** When it was logged (pino's `time`, ms since the epoch): just after the block was committed. */
  readonly time: number;
}

export interface ChainServer {
  readonly name: string;
  readonly url: string;
  readonly chainId: bigint;
  /** Spawn to the first successful `eth_chainId` answer. */
  readonly startupMs: number;
  /** evmnode's committed blocks so far, in order; always empty for anvil. */
  readonly blocks: readonly BlockLine[];
  /** Peak resident set (`VmHWM`) of the server process so far. */
  peakRssBytes(): Promise<number>;
  stop(): Promise<void>;
}

const STARTUP_MS = 30_000;

/**
 * The built evmnode CLI on a fresh home (local network), logging JSON at debug level; `options`
 * are more CLI flags; with `genesisGasLimit`, the local genesis with that block gas limit.
 */
export async function startEvmnode(
  repoRoot: string,
  blockTime: string,
  options: readonly string[] = [],
  genesisGasLimit?: bigint,
): Promise<ChainServer> {
  const home = await mkdtemp(join(tmpdir(), 'evmnode-chain-bench-'));
  if (genesisGasLimit !== undefined) writeGenesisWithGasLimit(repoRoot, home, genesisGasLimit);
  const args = ['start', '--home', home];
  args.push('--evm.http_port', '0', '--evm.ws_port', '0', '--consensus.block_time', blockTime);
  args.push('--logging.format', 'json', '--logging.level', 'debug', ...options);
  const spawned = performance.now();
  const child = spawnChild(evmnodeCli(repoRoot), args, () => rmSync(home, { recursive: true, force: true }));
  const blocks: BlockLine[] = [];
  const failed = Promise.race([exitBeforeReady(child), deadline()]);
  try {
    const port = new Promise<number>((resolve) => {
      // Reading goes on for the node's whole life, so a chatty node never blocks on a full pipe.
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.includes('"msg":"block committed"')) blocks.push(JSON.parse(line) as BlockLine);
        else if (line.includes('"msg":"evmnode started"'))
          resolve((JSON.parse(line) as { http: { port: number } }).http.port);
      });
    });
    const url = `http://127.0.0.1:${await Promise.race([port, failed])}/`;
    const chainId = await Promise.race([firstAnswer(url), failed]);
    return server('evmnode', child, url, chainId, performance.now() - spawned, blocks);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** `evmnode init` on `home`, its genesis then given the block gas limit `gasLimit`. */
function writeGenesisWithGasLimit(repoRoot: string, home: string, gasLimit: bigint): void {
  execFileSync(evmnodeCli(repoRoot), ['init', '--home', home], { stdio: 'ignore' });
  const file = join(home, 'config', 'genesis.json');
  const genesis = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...genesis, gasLimit: `0x${gasLimit.toString(16)}` }));
}

/**
 * anvil on a free port, mining every `blockTimeSeconds`, or each transaction as it arrives (its
 * automine) when 0 (its default accounts are the same dev accounts); `options` are more CLI flags.
 */
export async function startAnvil(
  binary: string,
  chainId: bigint,
  blockTimeSeconds: number,
  options: readonly string[] = [],
): Promise<ChainServer> {
  const port = await freePort();
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId)];
  if (blockTimeSeconds > 0) args.push('--block-time', String(blockTimeSeconds));
  args.push('--silent', ...options);
  const spawned = performance.now();
  const child = spawnChild(binary, args);
  child.stdout?.resume(); // drained so anvil never blocks on it
  try {
    const url = `http://127.0.0.1:${port}/`;
    const answered = await Promise.race([firstAnswer(url), exitBeforeReady(child), deadline()]);
    return server('anvil', child, url, answered, performance.now() - spawned, []);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

function server(
  name: string,
  child: ChildProcess,
  url: string,
  chainId: bigint,
  startupMs: number,
  blocks: readonly BlockLine[],
): ChainServer {
  return {
    name,
    url,
    chainId,
    startupMs,
    blocks,
    peakRssBytes: async () => {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
      if (kb === undefined) throw new Error(`no VmHWM in /proc/${child.pid}/status`);
      return Number(kb) * 1024;
    },
    stop: () => stopChild(child),
  };
}

/** Polls `eth_chainId` until it is answered; connection refusals mean "not listening yet". */
async function firstAnswer(url: string): Promise<bigint> {
  for (;;) {
    try {
      return BigInt(await rpc<string>(url, 'eth_chainId'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw error;
      await sleep(5);
    }
  }
}

async function deadline(): Promise<never> {
  await sleep(STARTUP_MS, undefined, { ref: false });
  throw new Error(`server did not answer eth_chainId within ${STARTUP_MS} ms`);
}

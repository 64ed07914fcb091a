/**
 * `npm run bench:chain -- --soak N`: evmnode's resident memory over a long stream of ETH transfers.
 * A fresh node (default 400 ms blocks, a 20,000-transaction pool) takes N pre-signed type-2
 * transfers from the 10 dev accounts, at most 15,000 of them unmined at any time; its VmRSS is read
 * every 5 s and as 25/50/75/100% of the stream is committed, and its VmHWM (the peak, which the
 * 512 MB target judges) at the end.
 *
 * Transactions are signed as they are sent, through libsecp256k1 (the native `secp256k1` binding
 * core depends on) over ethers' EIP-1559 signing hash: ~0.15 ms each, so signing keeps up with the
 * node instead of taking ~1 ms each up front. Blocks are counted from the node's `block committed`
 * debug lines, written once a block's receipts are readable.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Signature, Transaction, getBytes, hexlify, keccak256, randomBytes } from 'ethers';
import secp256k1 from 'secp256k1';
import { receiptOf, rpc } from './chain-rpc.js';
import { devSenders, SENDER_COUNT } from './chain-workload.js';
import { evmnodeCli, spawnChild, stopChild } from './child-processes.js';

const CHAIN_ID = 713714n;
const MEMPOOL_SIZE = 20_000;
/** Claimed for sending but not yet in a committed block; below the pool's size so it never fills. */
const MAX_OUTSTANDING = 15_000;
const IN_FLIGHT = 32;
const MAX_FEE = 100_000_000_000n; // 100 gwei
const TIP = 1_000_000_000n; // 1 gwei
const SAMPLE_MS = 5_000;
const SOAK_MS = 600_000;
const STARTUP_MS = 30_000;
const RSS_TARGET_MB = 512;
const MILESTONES = [25, 50, 75, 100] as const;
const MB = 1024 * 1024;

interface RssSample {
  readonly seconds: number;
  readonly committed: number;
  readonly bytes: number;
}

interface SoakNode {
  readonly child: ChildProcess;
  readonly url: string;
  stop(): Promise<void>;
}

/** Everything the node's stdout tells the soak, updated as its lines arrive. */
interface Progress {
  committed: number;
  blocks: number;
  /** What went wrong on the node's side: its first `transaction dropped at execution` line, or its exit. */
  fault: string | undefined;
  onBlock: (() => void) | undefined;
}

/** Runs the soak on a fresh evmnode and prints its figures; the node is stopped whatever happened. */
export async function soak(repoRoot: string, transactions: number): Promise<void> {
  const progress: Progress = { committed: 0, blocks: 0, fault: undefined, onBlock: undefined };
  console.error(`evmnode: soak, ${transactions.toLocaleString('en-US')} ETH transfers…`);
  const stopped = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const message = `soak: took more than ${SOAK_MS / 1000} s, aborted with ${progress.committed.toLocaleString('en-US')} of ${transactions.toLocaleString('en-US')} transactions committed`;
      stopped.abort(new Error(message));
      reject(new Error(message));
    }, SOAK_MS);
  });
  let node: SoakNode | undefined;
  try {
    await Promise.race([
      (async () => {
        node = await startNode(repoRoot, progress);
        await run(node, progress, transactions, stopped.signal);
      })(),
      overrun,
    ]);
  } finally {
    clearTimeout(timer);
    stopped.abort(new Error('soak: stopped'));
    await node?.stop();
  }
}

async function run(node: SoakNode, progress: Progress, total: number, stop: AbortSignal): Promise<void> {
  const { child, url } = node;
  const chainId = BigInt(await rpc<string>(url, 'eth_chainId'));
  if (chainId !== CHAIN_ID) throw new Error(`evmnode's chain ID is ${chainId}, not ${CHAIN_ID}`);
  const senders = await devSenders(url);
  const keys = senders.map(({ wallet }) => getBytes(wallet.privateKey));
  const firstNonces = senders.map(({ nonce }) => nonce);

  const started = performance.now();
  const seconds = (): number => (performance.now() - started) / 1000;
  const sample = async (): Promise<RssSample> => ({
    seconds: seconds(),
    committed: progress.committed,
    bytes: await statusBytes(child, 'VmRSS'),
  });
  const first = await sample();
  const periodic: RssSample[] = [first];
  const milestones = new Map<number, Promise<RssSample>>();
  let finishedAt: number | undefined;
  let failure: Error | undefined;
  const fail = (error: unknown): void => {
    failure ??= error instanceof Error ? error : new Error(String(error));
  };
  progress.onBlock = () => {
    for (const percent of MILESTONES)
      if (!milestones.has(percent) && progress.committed >= Math.ceil((total * percent) / 100)) {
        const taken = sample();
        taken.catch(fail);
        milestones.set(percent, taken);
      }
    if (finishedAt === undefined && progress.committed >= total) finishedAt = performance.now();
  };
  const sampler = setInterval(() => {
    sample().then((taken) => {
      periodic.push(taken);
      const committed = `${taken.committed.toLocaleString('en-US')} committed in ${progress.blocks} blocks`;
      console.error(`  ${taken.seconds.toFixed(0)} s: ${committed}, VmRSS ${(taken.bytes / MB).toFixed(0)} MB`);
    }, fail);
  }, SAMPLE_MS);

  let signingMs = 0;
  /** Each sender's latest signed transaction. */
  const lastHashes = new Map<number, string>();
  try {
    let next = 0;
    /** Transaction `index`: sender `index % 10` at its next nonce, so senders interleave. */
    const signNext = (index: number): { raw: string; hash: string } => {
      const signing = performance.now();
      const sender = index % SENDER_COUNT;
      const nonce = firstNonces[sender]! + Math.floor(index / SENDER_COUNT);
      const tx = Transaction.from({
        type: 2,
        chainId,
        nonce,
        to: hexlify(randomBytes(20)),
        value: 1_000n,
        gasLimit: 21_000n,
        maxFeePerGas: MAX_FEE,
        maxPriorityFeePerGas: TIP,
      });
      const { signature, recid } = secp256k1.ecdsaSign(getBytes(tx.unsignedHash), keys[sender]!);
      tx.signature = Signature.from({
        r: hexlify(signature.subarray(0, 32)),
        s: hexlify(signature.subarray(32)),
        v: 27 + recid,
      });
      const raw = tx.serialized;
      const hash = keccak256(raw);
      lastHashes.set(sender, hash);
      signingMs += performance.now() - signing;
      return { raw, hash };
    };
    const check = (): void => {
      if (stop.aborted) throw stop.reason;
      if (failure !== undefined) throw failure;
      if (progress.fault !== undefined) throw new Error(progress.fault);
    };
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (;;) {
          check();
          if (next >= total) return;
          if (next - progress.committed >= MAX_OUTSTANDING) {
            await sleep(10);
            continue;
          }
          const { raw, hash } = signNext(next++);
          const answered = await rpc<string>(url, 'eth_sendRawTransaction', [raw]).catch((error: unknown) => {
            throw progress.fault === undefined ? error : new Error(progress.fault, { cause: error });
          });
          if (answered !== hash) throw new Error(`eth_sendRawTransaction answered ${answered}, expected ${hash}`);
        }
      }),
    );
    const submitted = seconds();
    while (finishedAt === undefined) {
      check();
      await sleep(10);
    }
    const elapsed = (finishedAt - started) / 1000;
    const samples = await Promise.all(MILESTONES.map((percent) => milestones.get(percent)!));
    const peak = await statusBytes(child, 'VmHWM');

    // Mined in nonce order: each sender's last transaction succeeding means the rest got in too.
    for (const hash of lastHashes.values()) {
      const receipt = await receiptOf(url, hash);
      if (receipt?.status !== '0x1')
        throw new Error(`last transaction ${hash}: ${receipt === null ? 'no receipt' : `status ${receipt.status}`}`);
    }

    const mb = (bytes: number): string => `${(bytes / MB).toFixed(0)} MB`;
    const at = (label: string, taken: RssSample): string =>
      `${label} ${mb(taken.bytes)} (${taken.committed.toLocaleString('en-US')} tx, ${taken.seconds.toFixed(1)} s)`;
    const final = samples[samples.length - 1]!;
    const n = total.toLocaleString('en-US');
    console.log(
      `Soak: ${n} ETH transfers to a fresh evmnode (default 400 ms blocks, --mempool.size ${MEMPOOL_SIZE}), ≤ ${MAX_OUTSTANDING.toLocaleString('en-US')} unmined at a time, ${IN_FLIGHT} in flight`,
    );
    console.log(
      `  transactions committed  ${progress.committed.toLocaleString('en-US')} in ${progress.blocks} blocks (all ${SENDER_COUNT} senders at their last nonce)`,
    );
    console.log(
      `  elapsed                 ${elapsed.toFixed(1)} s, first submit to the block with the last (all submitted in ${submitted.toFixed(1)} s; signing ${(signingMs / 1000).toFixed(1)} s)`,
    );
    console.log(`  sustained               ${(progress.committed / elapsed).toFixed(0)} tx/s`);
    console.log(
      `  RSS (VmRSS)             ${[at('first', first), ...samples.map((taken, i) => at(`${MILESTONES[i]}%`, taken))].join('; ')}`,
    );
    console.log(`  RSS every 5 s [MB]      ${periodic.map((taken) => (taken.bytes / MB).toFixed(0)).join(' ')}`);
    console.log(`  peak RSS (VmHWM)        ${mb(peak)}`);
    // The target is the peak over the whole stream, not where the collector left the process at its end.
    const met = peak < RSS_TARGET_MB * MB;
    console.log(
      `Peak RSS < ${RSS_TARGET_MB} MB over ${n} transactions: ${met ? 'met' : 'MISSED'} (${mb(peak)}; ${mb(final.bytes)} at the end)`,
    );
    console.log();
  } finally {
    clearInterval(sampler);
    progress.onBlock = undefined;
  }
}

/** The built evmnode CLI on a fresh home: default block time, a larger pool, JSON debug log on stdout. */
async function startNode(repoRoot: string, progress: Progress): Promise<SoakNode> {
  const home = await mkdtemp(join(tmpdir(), 'evmnode-chain-soak-'));
  const args = ['start', '--home', home];
  args.push('--evm.http_port', '0', '--evm.ws_port', '0', '--mempool.size', String(MEMPOOL_SIZE));
  args.push('--logging.format', 'json', '--logging.level', 'debug');
  const child = spawnChild(evmnodeCli(repoRoot), args, () => rmSync(home, { recursive: true, force: true }));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`evmnode failed: ${error.message}`)));
    child.once('exit', (code, signal) => {
      progress.fault ??= `evmnode exited (${String(code ?? signal)})${stderr ? `:\n${stderr.trimEnd()}` : ''}`;
      reject(new Error(progress.fault));
    });
  });
  exited.catch(() => {}); // after start-up, seen through progress.fault
  try {
    const port = new Promise<number>((resolve) => {
      // Read for the node's whole life, so it never blocks on a full pipe.
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.includes('"msg":"block committed"')) {
          progress.committed += (JSON.parse(line) as { transactions: number }).transactions;
          progress.blocks++;
          progress.onBlock?.();
        } else if (line.includes('"msg":"transaction dropped at execution"'))
          progress.fault ??= `evmnode dropped a transaction: ${line}`;
        else if (line.includes('"msg":"evmnode started"'))
          resolve((JSON.parse(line) as { http: { port: number } }).http.port);
      });
    });
    const startup = sleep(STARTUP_MS, undefined, { ref: false }).then(() => {
      throw new Error(`evmnode did not start within ${STARTUP_MS} ms`);
    });
    const url = `http://127.0.0.1:${await Promise.race([port, exited, startup])}/`;
    return { child, url, stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** A `kB` line of `/proc/<pid>/status` (VmRSS, VmHWM), in bytes. */
async function statusBytes(child: ChildProcess, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${child.pid}/status`);
  return Number(kb) * 1024;
}

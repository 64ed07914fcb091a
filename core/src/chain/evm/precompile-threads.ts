import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { EVMError, type ExecResult } from '@ethereumjs/evm';

/** What a worker computes: the standard precompile at `address` (unprefixed, 40 hex digits). */
export interface PrecompileJob {
  /** The hardfork whose gas parameters apply. */
  readonly hardfork: string;
  readonly address: string;
  readonly data: Uint8Array;
  readonly gasLimit: bigint;
}

export type PrecompileReply =
  | { readonly executionGasUsed: bigint; readonly returnValue: Uint8Array; readonly error: string | undefined }
  | { readonly failure: string };

/** When a computation must give up, and with which error (a simulation's deadline); none for blocks. */
export interface ComputeDeadline {
  /** `performance.now()` after which the computation is abandoned. */
  at(): number;
  /** The error the abandoned call fails with. */
  exceeded(): Error;
  /** Fires when the caller no longer needs the computation (its client left): abandoned too, with the signal's reason. */
  signal?(): AbortSignal | undefined;
}

interface QueuedJob {
  readonly job: PrecompileJob;
  readonly deadline: ComputeDeadline | undefined;
  /** Settles the caller's promise. */
  settle(outcome: { readonly result: ExecResult } | { readonly error: Error }): void;
  /** Set while a worker runs the job: stops that worker and fails the job with `error`. */
  stop?: ((error: Error) => void) | undefined;
}

/** A worker's memory bound: the largest precompile input fits a block's gas, far below this. */
const WORKER_HEAP_MB = 256;

/**
 * Threads that run the expensive standard precompiles (BN254 pairing, BLAKE2 F, modexp, KZG point
 * evaluation, BLS12-381) off the event loop: one such call can compute for seconds (9.9M BLAKE2 rounds take about 3 s),
 * and inline it would stop every other call and block production meanwhile. A call past its
 * deadline, or whose caller gave up, terminates its worker, which is the only way to stop a
 * computation already running.
 */
export class PrecompileThreads {
  readonly #idle: Worker[] = [];
  readonly #queue: QueuedJob[] = [];
  #workers = 0;

  constructor(private readonly size: number) {}

  run(job: PrecompileJob, deadline: ComputeDeadline | undefined): Promise<ExecResult> {
    const signal = deadline?.signal?.();
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const abandoned = (): void => this.#abandon(queued, signal!.reason as Error);
      const queued: QueuedJob = {
        job,
        deadline,
        settle: (outcome) => {
          signal?.removeEventListener('abort', abandoned);
          if ('error' in outcome) reject(outcome.error);
          else resolve(outcome.result);
        },
      };
      signal?.addEventListener('abort', abandoned, { once: true });
      this.#queue.push(queued);
      this.#next();
    });
  }

  /** Takes `queued` out of the queue, or stops the worker running it. */
  #abandon(queued: QueuedJob, error: Error): void {
    const at = this.#queue.indexOf(queued);
    if (at < 0) return queued.stop?.(error);
    this.#queue.splice(at, 1);
    queued.settle({ error });
  }

  #next(): void {
    const queued = this.#queue.shift();
    if (queued === undefined) return;
    if (queued.deadline !== undefined && performance.now() > queued.deadline.at()) {
      queued.settle({ error: queued.deadline.exceeded() });
      return this.#next();
    }
    const worker = this.#idle.pop() ?? this.#spawn();
    if (worker === undefined) {
      this.#queue.unshift(queued);
      return;
    }
    this.#start(worker, queued);
  }

  #spawn(): Worker | undefined {
    if (this.#workers >= this.size) return undefined;
    this.#workers++;
    const worker = new Worker(new URL('./precompile-worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    // Idle workers must not keep the process alive.
    worker.unref();
    return worker;
  }

  #start(worker: Worker, queued: QueuedJob): void {
    let timer: NodeJS.Timeout | undefined;
    const finished = (): void => {
      clearTimeout(timer);
      queued.stop = undefined;
      worker.removeAllListeners('message').removeAllListeners('error').removeAllListeners('exit');
    };
    // A stopped or failed worker is replaced at once, so that the next call does not wait for
    // a new thread's start-up.
    const retire = (error: Error): void => {
      finished();
      void worker.terminate();
      this.#workers--;
      const replacement = this.#spawn();
      if (replacement !== undefined) this.#idle.push(replacement);
      this.#next();
      queued.settle({ error });
    };
    queued.stop = retire;
    worker.once('message', (reply: PrecompileReply) => {
      finished();
      this.#idle.push(worker);
      this.#next();
      queued.settle('failure' in reply ? { error: new Error(reply.failure) } : { result: resultOf(reply) });
    });
    worker.once('error', retire);
    worker.once('exit', (code) => retire(new Error(`precompile worker exited with code ${code}`)));
    const until = queued.deadline?.at() ?? Number.POSITIVE_INFINITY;
    // A replay's computations have no deadline, only a signal.
    if (Number.isFinite(until)) {
      timer = setTimeout(() => retire(queued.deadline!.exceeded()), Math.max(until - performance.now(), 0));
    }
    worker.postMessage(queued.job);
  }
}

function resultOf(reply: Extract<PrecompileReply, { executionGasUsed: bigint }>): ExecResult {
  const result: ExecResult = { executionGasUsed: reply.executionGasUsed, returnValue: reply.returnValue };
  if (reply.error !== undefined) result.exceptionError = new EVMError(reply.error as EVMError['error']);
  return result;
}

/**
 * The process's precompile threads, in two sets: the computations are pure, and a core or a few
 * serve all of them. Workers start on the first expensive call.
 */
export const precompileThreads = {
  /**
   * The blocks the node makes or replicates: never behind a client's computations. Two free
   * `eth_call`s of 9.5M BLAKE2 rounds each held a block's one-transaction precompile call for 5 s
   * when both shared one queue.
   */
  chain: new PrecompileThreads(1),
  /** Simulated calls, traces and replays, for clients. */
  requests: new PrecompileThreads(Math.max(1, Math.min(availableParallelism() - 1, 4))),
} as const;

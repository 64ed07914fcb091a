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
}

interface QueuedJob {
  readonly job: PrecompileJob;
  readonly deadline: ComputeDeadline | undefined;
  readonly resolve: (result: ExecResult) => void;
  readonly reject: (error: Error) => void;
}

/** A worker's memory bound: the largest precompile input fits a block's gas, far below this. */
const WORKER_HEAP_MB = 256;

/**
 * Threads that run the expensive standard precompiles (BN254 pairing, BLAKE2 F, modexp, KZG point
 * evaluation, BLS12-381) off the event loop: one such call can compute for seconds (9.9M BLAKE2 rounds take about 3 s),
 * and inline it would stop every other call and block production meanwhile. A call past its
 * deadline terminates its worker, which is the only way to stop a computation already running.
 */
export class PrecompileThreads {
  readonly #idle: Worker[] = [];
  readonly #queue: QueuedJob[] = [];
  #workers = 0;

  constructor(private readonly size: number) {}

  run(job: PrecompileJob, deadline: ComputeDeadline | undefined): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, deadline, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    const queued = this.#queue.shift();
    if (queued === undefined) return;
    if (queued.deadline !== undefined && performance.now() > queued.deadline.at()) {
      queued.reject(queued.deadline.exceeded());
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
    const settle = (): void => {
      clearTimeout(timer);
      worker.removeAllListeners('message').removeAllListeners('error').removeAllListeners('exit');
    };
    // A stopped or failed worker is replaced at once, so that the next call does not wait for
    // a new thread's start-up.
    const retire = (): void => {
      settle();
      void worker.terminate();
      this.#workers--;
      const replacement = this.#spawn();
      if (replacement !== undefined) this.#idle.push(replacement);
      this.#next();
    };
    worker.once('message', (reply: PrecompileReply) => {
      settle();
      this.#idle.push(worker);
      this.#next();
      if ('failure' in reply) queued.reject(new Error(reply.failure));
      else queued.resolve(resultOf(reply));
    });
    worker.once('error', (error) => {
      retire();
      queued.reject(error);
    });
    worker.once('exit', (code) => {
      retire();
      queued.reject(new Error(`precompile worker exited with code ${code}`));
    });
    if (queued.deadline !== undefined) {
      const remaining = Math.max(queued.deadline.at() - performance.now(), 0);
      timer = setTimeout(() => {
        retire();
        queued.reject(queued.deadline!.exceeded());
      }, remaining);
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
 * The process's precompile threads, shared by every VM: the computations are pure, and two cores'
 * worth of threads serve all of them. Workers start on the first expensive call.
 */
export const precompileThreads = new PrecompileThreads(Math.max(1, Math.min(availableParallelism() - 1, 4)));

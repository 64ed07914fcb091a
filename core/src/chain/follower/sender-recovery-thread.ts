import { Worker } from 'node:worker_threads';

/** One transaction of a producer's block, as the worker left it for the follower's thread. */
export type RecoveredTransaction =
  /** A native transaction: decoded on the follower's thread (few per block). */
  | { readonly kind: 'native'; readonly bytes: Uint8Array }
  /** A signed EVM transaction with what is costly to work out of it. */
  | {
      readonly kind: 'evm';
      readonly raw: Uint8Array;
      readonly senderPublicKey: Uint8Array;
      readonly hash: Uint8Array;
      /** As the producer worked it out: of the native transaction it wraps the raw one in. */
      readonly nativeHash: Uint8Array;
    }
  /** An EVM transaction that does not decode or whose signature recovers no sender. */
  | { readonly kind: 'invalid'; readonly reason: string };

export interface RecoveryRequest {
  readonly id: number;
  /** The block's transactions as CometBFT serves them (base64). */
  readonly txs: readonly string[];
}

export interface RecoveryReply {
  readonly id: number;
  readonly transactions: readonly RecoveredTransaction[];
}

export interface RecoveryWorkerData {
  readonly chainId: bigint;
}

/** A block's transactions hold no more than its size allows; this bounds the worker far above. */
const WORKER_HEAP_MB = 256;

/**
 * A worker thread that recovers the senders and hashes of a producer's blocks' EVM transactions:
 * about 0.15 ms per transaction, some 90 ms for a full block, that would otherwise hold a
 * catching-up follower's thread between the blocks it executes. Blocks fetched ahead are
 * recovered here while earlier ones execute. A worker that fails fails the blocks in its hands;
 * the next block starts a new one.
 */
export class SenderRecoveryThread {
  #current: RecoveryWorker | undefined;
  #nextId = 1;

  constructor(private readonly chainId: bigint) {}

  recover(txs: readonly string[]): Promise<readonly RecoveredTransaction[]> {
    // An empty block has nothing to recover: it need not wait for the worker, nor start it.
    if (txs.length === 0) return Promise.resolve([]);
    const { worker, pending } = (this.#current ??= this.#spawn());
    const id = this.#nextId++;
    return new Promise<RecoveryReply>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, txs } satisfies RecoveryRequest);
    }).then((reply) => reply.transactions);
  }

  /** Ends the worker; blocks still in its hands fail. */
  async stop(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    await current?.worker.terminate();
  }

  #spawn(): RecoveryWorker {
    const worker = new Worker(new URL('./sender-recovery-worker.js', import.meta.url), {
      workerData: { chainId: this.chainId } satisfies RecoveryWorkerData,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    // An idle worker must not keep the process alive.
    worker.unref();
    const spawned: RecoveryWorker = { worker, pending: new Map() };
    worker.on('message', (reply: RecoveryReply) => {
      spawned.pending.get(reply.id)?.resolve(reply);
      spawned.pending.delete(reply.id);
    });
    const retire = (error: Error) => {
      if (this.#current === spawned) this.#current = undefined;
      for (const { reject } of spawned.pending.values()) reject(error);
      spawned.pending.clear();
    };
    worker.on('error', retire);
    worker.on('exit', (code) => retire(new Error(`sender recovery worker exited with code ${code}`)));
    return spawned;
  }
}

interface RecoveryWorker {
  readonly worker: Worker;
  /** The requests it has not answered, by id. */
  readonly pending: Map<number, { resolve: (reply: RecoveryReply) => void; reject: (error: Error) => void }>;
}

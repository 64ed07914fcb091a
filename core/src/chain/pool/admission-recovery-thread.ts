import { Worker } from 'node:worker_threads';
import {
  DONE,
  HANDED,
  PUBLIC_KEY_BYTES,
  RING_BYTES,
  ringViews,
  SLOT_BYTES,
  SLOTS,
  slotOf,
  type AdmissionRecoveryData,
  type RingViews,
} from './admission-recovery-ring.js';

/** The worker holds one ring's transactions and the transaction library; far below this. */
const WORKER_HEAP_MB = 128;
/**
 * A transaction's garbage is short-lived and small. V8's default young generation kept the
 * worker's memory about 35 MB larger, for no speed (about 100 µs a transaction either way).
 */
const WORKER_YOUNG_GENERATION_MB = 4;

/**
 * A worker thread that recovers the senders of transactions being admitted: libsecp256k1's
 * recovery and the message it checks take about 85 µs of a transfer's admission, a ninth of the
 * node's thread when blocks are large and full. Transactions and public keys pass through shared
 * memory (`admission-recovery-ring.ts`) rather than messages: a message per admission cost the
 * node's thread, in copies and garbage, about what the recovery did. The worker's answer is the
 * transaction library's own, so blocks and rejections are the same whichever thread recovered.
 */
export class AdmissionRecoveryThread {
  #ring: Ring | undefined;
  /** Set once a worker failed on its own: admission then recovers on the node's thread. */
  #broken = false;
  #handedOver = 0;

  constructor(
    private readonly chainId: bigint,
    private readonly onFailure: (error: Error) => void,
  ) {}

  /**
   * The 64-byte public key of the signer of `raw`, worked out on the worker: undefined at once when
   * the caller must work it out itself (too large for a slot, every slot taken, or no worker), a
   * promise of undefined when the worker found none (the caller's own recovery names the fault).
   */
  publicKeyOf(raw: Uint8Array): Promise<Uint8Array | undefined> | undefined {
    if (raw.length > SLOT_BYTES || this.#broken) return undefined;
    const publicKey = (this.#ring ??= this.#spawn()).hand(raw);
    if (publicKey !== undefined) this.#handedOver++;
    return publicKey;
  }

  /** Transactions handed to the worker so far. */
  get handedOver(): number {
    return this.#handedOver;
  }

  /** Ends the worker; transactions in its hands get undefined, and a later call starts a new one. */
  async stop(): Promise<void> {
    const ring = this.#ring;
    this.#ring = undefined;
    ring?.abandon();
    await ring?.worker.terminate();
  }

  #spawn(): Ring {
    const shared = new SharedArrayBuffer(RING_BYTES);
    const worker = new Worker(new URL('./admission-recovery-worker.js', import.meta.url), {
      workerData: { chainId: this.chainId, shared } satisfies AdmissionRecoveryData,
      resourceLimits: {
        maxOldGenerationSizeMb: WORKER_HEAP_MB,
        maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
      },
    });
    // It waits for work forever: it must not keep the process alive.
    worker.unref();
    const ring = new Ring(worker, ringViews(shared));
    const retire = (error: Error) => {
      if (this.#ring !== ring) return;
      this.#ring = undefined;
      this.#broken = true;
      ring.abandon();
      this.onFailure(error);
    };
    worker.on('error', retire);
    worker.on('exit', (code) => retire(new Error(`admission recovery worker exited with code ${code}`)));
    return ring;
  }
}

/** The node's side of one worker's ring. */
class Ring {
  /** Per slot, the admission waiting for it. */
  readonly #waiting: (((publicKey: Uint8Array | undefined) => void) | undefined)[] = Array.from(
    { length: SLOTS },
    () => undefined,
  );
  #handed = 0;
  #done = 0;
  #watching = false;

  constructor(
    readonly worker: Worker,
    private readonly views: RingViews,
  ) {}

  hand(raw: Uint8Array): Promise<Uint8Array | undefined> | undefined {
    if (((this.#handed - this.#done) | 0) === SLOTS) return undefined;
    const { control, lengths, data } = this.views;
    const slot = slotOf(this.#handed);
    data.set(raw, slot * SLOT_BYTES);
    lengths[slot] = raw.length;
    const publicKey = new Promise<Uint8Array | undefined>((resolve) => (this.#waiting[slot] = resolve));
    this.#handed = (this.#handed + 1) | 0;
    // The store publishes the slot's writes to the worker, which reads them once it sees the count.
    Atomics.store(control, HANDED, this.#handed);
    Atomics.notify(control, HANDED);
    this.#watch();
    return publicKey;
  }

  /** Answers every transaction in the worker's hands with undefined. */
  abandon(): void {
    for (const [slot, resolve] of this.#waiting.entries()) {
      this.#waiting[slot] = undefined;
      resolve?.(undefined);
    }
    this.#done = this.#handed;
  }

  /** Collects what the worker finished once it moves the done count; one wait covers many. */
  #watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    const wait = Atomics.waitAsync(this.views.control, DONE, this.#done);
    if (wait.async) void wait.value.then(() => this.#collect());
    else queueMicrotask(() => this.#collect());
  }

  #collect(): void {
    this.#watching = false;
    const { control, lengths, data } = this.views;
    const done = Atomics.load(control, DONE);
    while (this.#done !== done && this.#done !== this.#handed) {
      const slot = slotOf(this.#done);
      const offset = slot * SLOT_BYTES;
      const resolve = this.#waiting[slot];
      this.#waiting[slot] = undefined;
      resolve?.(lengths[slot] === PUBLIC_KEY_BYTES ? data.slice(offset, offset + PUBLIC_KEY_BYTES) : undefined);
      this.#done = (this.#done + 1) | 0;
    }
    if (this.#done !== this.#handed) this.#watch();
  }
}

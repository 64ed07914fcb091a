import type { KvStore } from './kv-store.js';

/** RocksDB reads run on libuv's thread pool, four threads unless `UV_THREADPOOL_SIZE` says otherwise. */
const READ_JOBS = 4;

/**
 * Each job's answer may come on a turn of the event loop of its own, which reading together is
 * there to avoid: a burst is split among the threads only in parts of at least this many keys.
 */
const KEYS_PER_JOB = 32;

interface Waiting {
  readonly key: Uint8Array;
  readonly resolve: (value: Uint8Array | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Point reads made in one burst of microtasks, read from the store together (`getMany`). Every
 * read the store answers comes back on its own turn of the event loop, and each turn also runs
 * whatever else arrived meanwhile (transactions being admitted): hundreds of trie walks reading
 * one node each then take hundreds of turns. Read together, they take one or a few. A burst is
 * sent once the microtask queue has drained, when every walk that could go on without waiting
 * for a read has asked for its next one.
 */
export class CoalescedReads {
  #burst: Waiting[] | undefined;

  constructor(private readonly store: Pick<KvStore, 'getMany'>) {}

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return new Promise((resolve, reject) => {
      if (this.#burst === undefined) {
        const burst: Waiting[] = [];
        this.#burst = burst;
        // A tick queued from a microtask runs once the microtask queue is empty.
        queueMicrotask(() => process.nextTick(() => this.#send(burst)));
      }
      this.#burst.push({ key, resolve, reject });
    });
  }

  #send(burst: Waiting[]): void {
    this.#burst = undefined;
    const jobs = Math.max(1, Math.min(READ_JOBS, Math.floor(burst.length / KEYS_PER_JOB)));
    const perJob = Math.ceil(burst.length / jobs);
    for (let start = 0; start < burst.length; start += perJob) this.#read(burst.slice(start, start + perJob));
  }

  #read(waiting: readonly Waiting[]): void {
    this.store.getMany(waiting.map(({ key }) => key)).then(
      (values) => waiting.forEach(({ resolve }, index) => resolve(values[index])),
      (error: unknown) => waiting.forEach(({ reject }) => reject(error)),
    );
  }
}

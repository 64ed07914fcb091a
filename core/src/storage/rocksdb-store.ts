import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type RocksDbModule from 'rocksdb';
import type { KeyRange, KvStore, WriteBatch } from './kv-store.js';
import { StartupError } from '../node/startup-error.js';

type RocksDbConstructor = (typeof RocksDbModule)['default'];
type RocksDb = ReturnType<RocksDbConstructor>;
type IteratorOptions = Parameters<RocksDb['iterator']>[0] & object;
type RocksDbIterator = ReturnType<RocksDb['iterator']>;

const SCAN_BATCH_BYTES = 256 * 1024;
/** A run of entries taken at once ends at this many, or once it holds SCAN_BATCH_BYTES: values may be megabytes each. */
const RUN_ENTRIES = 256;

// The package is CommonJS while its type declarations describe an ES default export.
const rocksdb = createRequire(import.meta.url)('rocksdb') as RocksDbConstructor;

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function promised<T>(run: (done: (error: Error | undefined | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    run((error, value) => (error ? reject(error) : resolve(value as T)));
  });
}

/** What every operation refused after `close()` rejects with. */
function closedError(): Error {
  return new Error('the database is closed');
}

/**
 * A {@link KvStore} on RocksDB (the `rocksdb` package). The package crashes the process on any read
 * or write that reaches RocksDB after, or while, it closes, so the store refuses operations once
 * `close()` is called and closes only after those already running have finished.
 */
export class RocksDbStore implements KvStore {
  /** Operations handed to RocksDB and not yet answered. */
  #running = 0;
  #onIdle: (() => void) | undefined;
  /** Iterators not yet ended: the store ends those their consumers left suspended before closing. */
  readonly #iterators = new Set<RocksDbIterator>();
  #closing: Promise<void> | undefined;

  private constructor(
    private readonly db: RocksDb,
    readonly location: string,
  ) {}

  /** Opens (creating if needed) the database in `location`, explaining a lock held by another process. */
  static async open(location: string): Promise<RocksDbStore> {
    mkdirSync(location, { recursive: true });
    const db = rocksdb(location);
    try {
      await promised<void>((done) => db.open({ createIfMissing: true }, done));
    } catch (error) {
      const message = (error as Error).message;
      if (/lock/i.test(message)) {
        throw new StartupError(
          `the database at ${location} is locked by another process: another evmnode is probably running ` +
            'with the same home. Stop it, or start this node with a different --home.',
          { cause: error },
        );
      }
      throw new StartupError(`cannot open the database at ${location}: ${message}`, { cause: error });
    }
    return new RocksDbStore(db, location);
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    try {
      return await this.#call<Buffer>((done) => this.db.get(asBuffer(key), { asBuffer: true }, done as never));
    } catch (error) {
      if (/NotFound/i.test((error as Error).message)) return undefined;
      throw error;
    }
  }

  getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.#call<(Buffer | undefined)[]>((done) =>
      this.db.getMany(keys.map(asBuffer), { asBuffer: true }, done as never),
    );
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.#call((done) => this.db.put(asBuffer(key), asBuffer(value), done));
  }

  del(key: Uint8Array): Promise<void> {
    return this.#call((done) => this.db.del(asBuffer(key), done));
  }

  batch(): WriteBatch {
    const chained = this.db.batch();
    let length = 0;
    return {
      put(key, value) {
        chained.put(asBuffer(key), asBuffer(value));
        length++;
        return this;
      },
      del(key) {
        chained.del(asBuffer(key));
        length++;
        return this;
      },
      get length() {
        return length;
      },
      write: (options = {}) =>
        this.#call<void>((done) => {
          chained.write({ sync: options.sync === true }, done);
        }),
    };
  }

  async *iterate(range: KeyRange = {}): AsyncIterable<readonly [Uint8Array, Uint8Array]> {
    const options: IteratorOptions = {
      keyAsBuffer: true,
      valueAsBuffer: true,
      reverse: range.reverse === true,
      limit: range.limit ?? -1,
      // Entries are fetched from RocksDB in batches of about this many bytes, not one by one.
      highWaterMark: SCAN_BATCH_BYTES,
    };
    if (range.gte !== undefined) options.gte = asBuffer(range.gte);
    if (range.gt !== undefined) options.gt = asBuffer(range.gt);
    if (range.lte !== undefined) options.lte = asBuffer(range.lte);
    if (range.lt !== undefined) options.lt = asBuffer(range.lt);
    if (this.#closing !== undefined) throw closedError();
    const iterator = this.db.iterator(options);
    this.#iterators.add(iterator);
    // Entries are taken in runs through callbacks, one promise per run rather than per entry.
    const nextRun = () =>
      this.#call<{ run: (readonly [Buffer, Buffer])[]; ended: boolean }>((done) => {
        const run: (readonly [Buffer, Buffer])[] = [];
        let bytes = 0;
        const step = () =>
          iterator.next((error, key, value) => {
            if (error) return done(error);
            if (key === undefined) return done(null, { run, ended: true });
            // keyAsBuffer and valueAsBuffer make both Buffers.
            run.push([key as Buffer, value as Buffer]);
            bytes += (key as Buffer).length + (value as Buffer).length;
            if (run.length >= RUN_ENTRIES || bytes >= SCAN_BATCH_BYTES) done(null, { run, ended: false });
            else step();
          });
        step();
      });
    try {
      for (;;) {
        const { run, ended } = await nextRun();
        yield* run;
        if (ended) return;
      }
    } finally {
      await this.#end(iterator);
    }
  }

  /** Waits for the operations running, ends the iterators left open, then closes RocksDB; refuses every later operation. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#running > 0) await new Promise<void>((resolve) => (this.#onIdle = resolve));
      await Promise.all([...this.#iterators].map((iterator) => this.#end(iterator)));
      await promised<void>((done) => this.db.close(done));
    })();
    return this.#closing;
  }

  /** Runs one RocksDB operation, refused once closing has begun. */
  #call<T>(run: (done: (error: Error | undefined | null, value?: T) => void) => void): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(closedError());
    return this.#track(run);
  }

  #track<T>(run: (done: (error: Error | undefined | null, value?: T) => void) => void): Promise<T> {
    this.#running++;
    return new Promise((resolve, reject) => {
      run((error, value) => {
        if (--this.#running === 0) this.#onIdle?.();
        if (error) reject(error);
        else resolve(value as T);
      });
    });
  }

  /** Ends `iterator` once, whoever asks first: its consumer or `close()`, which must wait for it. */
  #end(iterator: RocksDbIterator): Promise<void> {
    if (!this.#iterators.delete(iterator)) return Promise.resolve();
    return this.#track<void>((done) => iterator.end(done));
  }
}

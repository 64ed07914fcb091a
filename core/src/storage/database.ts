import path from 'node:path';
import { Bucket, bucketRange } from './buckets.js';
import type { KvStore, WriteBatch } from './kv-store.js';
import { MemoryStore } from './memory-store.js';
import { Repository, uint64Codec, utf8Codec } from './repository.js';
import { RocksDbStore } from './rocksdb-store.js';
import { StartupError } from '../node/startup-error.js';

/** The layout version of everything evmnode stores; raise it when a bucket's format changes. */
export const SCHEMA_VERSION = 4n;

/**
 * Earlier versions this evmnode reads too, and moves to {@link SCHEMA_VERSION} when it opens them,
 * so that a release that cannot read what it then writes refuses the database. Version 3 stored
 * each receipt with its logs; since 4 a receipt names them in the Log bucket. Both are read.
 */
const UPGRADED_SCHEMA_VERSIONS: readonly bigint[] = [3n];

const SCHEMA_VERSION_KEY = 'schema-version';

/** The folder of the node's database (and of its head marker) in `home`. */
export function dataFolderOf(home: string): string {
  return path.join(home, 'data');
}

/** The node's database: a {@link KvStore} whose schema version has been checked. */
export class Database {
  /** Node-wide metadata. */
  readonly meta: Repository<string, bigint>;

  private constructor(readonly store: KvStore) {
    this.meta = new Repository(store, Bucket.Meta, utf8Codec, uint64Codec);
  }

  /** Opens the RocksDB database under `<home>/data`. */
  static async openInHome(home: string): Promise<Database> {
    return Database.open(await RocksDbStore.open(dataFolderOf(home)));
  }

  /** An in-memory database, for unit tests. */
  static inMemory(): Promise<Database> {
    return Database.open(new MemoryStore());
  }

  /** Checks (or, in an empty store, writes) the schema version, closing the store if it does not match. */
  static async open(store: KvStore): Promise<Database> {
    const database = new Database(store);
    try {
      await database.#checkSchemaVersion();
    } catch (error) {
      await store.close();
      throw error;
    }
    return database;
  }

  batch(): WriteBatch {
    return this.store.batch();
  }

  close(): Promise<void> {
    return this.store.close();
  }

  async #checkSchemaVersion(): Promise<void> {
    const stored = await this.meta.get(SCHEMA_VERSION_KEY);
    if (stored === SCHEMA_VERSION) return;
    if (stored === undefined || UPGRADED_SCHEMA_VERSIONS.includes(stored)) {
      if (stored === undefined && (await this.#hasData())) {
        throw new StartupError('the database holds data but no schema version: it was not written by evmnode');
      }
      const batch = this.batch();
      this.meta.put(batch, SCHEMA_VERSION_KEY, SCHEMA_VERSION);
      await batch.write();
      return;
    }
    throw new StartupError(
      `the database has schema version ${stored}, but this evmnode reads version ${SCHEMA_VERSION}: ` +
        'start with a new --home, or run the evmnode release that wrote it.',
    );
  }

  async #hasData(): Promise<boolean> {
    const afterMeta = { gte: bucketRange(Bucket.Meta).lt, limit: 1 };
    for await (const entry of this.store.iterate(afterMeta)) return entry !== undefined;
    for await (const entry of this.meta.entries({ limit: 1 })) return entry !== undefined;
    return false;
  }
}

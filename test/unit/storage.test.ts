import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  Bucket,
  bucketKey,
  bucketRange,
  Database,
  isStartupError,
  type KvStore,
  MemoryStore,
  Repository,
  uint64BE,
  uint64Codec,
  utf8Codec,
} from '@evmnode/core';
import { HEAD_MARKER_FILE, HeadMarker, RocksDbStore } from '@evmnode/core/internal';
import { pino } from 'pino';
import { temporaryDir } from '../support/temp-dirs.js';

const bytes = (...values: number[]) => Uint8Array.from(values);
const hex = (value: Uint8Array) => Buffer.from(value).toString('hex');

async function collect(iterable: AsyncIterable<readonly [Uint8Array, Uint8Array]>): Promise<string[]> {
  const keys: string[] = [];
  for await (const [key] of iterable) keys.push(hex(key));
  return keys;
}

const tempDir = () => temporaryDir('storage');

function kvStoreContract(name: string, open: () => Promise<KvStore>): void {
  describe(`${name} key-value store`, () => {
    let store: KvStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    it('puts, gets and deletes values', async () => {
      await store.put(bytes(1, 2), bytes(9));
      expect(hex((await store.get(bytes(1, 2)))!)).to.equal('09');
      await store.del(bytes(1, 2));
      expect(await store.get(bytes(1, 2))).to.equal(undefined);
    });

    it('applies a batch as a whole, and nothing before write()', async () => {
      await store.put(bytes(5), bytes(5));
      const batch = store.batch().put(bytes(1), bytes(1)).put(bytes(2), bytes(2)).del(bytes(5));
      expect(batch.length).to.equal(3);
      expect(await store.get(bytes(1))).to.equal(undefined);
      await batch.write();
      expect(await collect(store.iterate())).to.deep.equal(['01', '02']);
    });

    it('applies a synced batch like any other', async () => {
      await store.batch().put(bytes(7), bytes(70)).write({ sync: true });
      expect(hex((await store.get(bytes(7)))!)).to.equal('46');
    });

    it('iterates in byte order within bounds, forwards, backwards and limited', async () => {
      const batch = store.batch();
      for (const key of [[3], [1], [2, 0], [2], [4]]) batch.put(Uint8Array.from(key), bytes(0));
      await batch.write();
      expect(await collect(store.iterate())).to.deep.equal(['01', '02', '0200', '03', '04']);
      expect(await collect(store.iterate({ gte: bytes(2), lt: bytes(4) }))).to.deep.equal(['02', '0200', '03']);
      expect(await collect(store.iterate({ gt: bytes(2), lte: bytes(4) }))).to.deep.equal(['0200', '03', '04']);
      expect(await collect(store.iterate({ reverse: true, limit: 2 }))).to.deep.equal(['04', '03']);
    });

    it('iterates every entry in order, values of megabytes among small ones', async () => {
      const sizes = [300 * 1024, 10, 1024 * 1024, 0, 256 * 1024 - 3, ...Array<number>(300).fill(100), 700 * 1024];
      const batch = store.batch();
      sizes.forEach((size, index) =>
        batch.put(Uint8Array.of(index >> 8, index & 0xff), new Uint8Array(size).fill(index)),
      );
      await batch.write();
      const seen: [number, number, number][] = [];
      for await (const [key, value] of store.iterate())
        seen.push([key[0]! * 256 + key[1]!, value.length, value[0] ?? -1]);
      expect(seen).to.deep.equal(sizes.map((size, index) => [index, size, size === 0 ? -1 : index & 0xff]));
    });

    it('reads many values at once, in the order asked, with undefined for missing keys', async () => {
      await store.batch().put(bytes(1), bytes(11)).put(bytes(2), bytes(22)).write();
      const values = await store.getMany([bytes(2), bytes(9), bytes(1)]);
      expect(values.map((value) => (value === undefined ? undefined : hex(value)))).to.deep.equal([
        '16',
        undefined,
        '0b',
      ]);
      expect(await store.getMany([])).to.deep.equal([]);
    });

    it('refuses every operation from the moment close() is called, and afterwards', async () => {
      await store.put(bytes(1), bytes(1));
      const operations = [
        () => store.get(bytes(1)),
        () => store.getMany([bytes(1)]),
        () => store.put(bytes(2), bytes(2)),
        () => store.del(bytes(1)),
        () => store.batch().put(bytes(3), bytes(3)).write(),
        () => collect(store.iterate()),
      ];
      const closing = store.close();
      const inTheSameTurn = operations.map(failureOf);
      await closing;
      const afterwards = operations.map(failureOf);
      const refusals = await Promise.all([...inTheSameTurn, ...afterwards]);
      expect(refusals).to.deep.equal(Array.from({ length: 12 }, () => 'the database is closed'));
    });
  });
}

/** The message `operation` fails with, thrown or rejected. */
async function failureOf(operation: () => Promise<unknown>): Promise<string> {
  try {
    await operation();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the operation succeeded');
}

kvStoreContract('in-memory', () => Promise.resolve(new MemoryStore()));
kvStoreContract('RocksDB', () => RocksDbStore.open(tempDir()));

describe('RocksDB store closing', () => {
  it('lets the reads and writes already running finish before it closes', async () => {
    const store = await RocksDbStore.open(tempDir());
    await store.put(bytes(1), bytes(10));
    const running = [store.get(bytes(1)), store.batch().put(bytes(2), bytes(20)).write({ sync: true })];
    await store.close();
    const [value] = await Promise.all(running);
    expect(hex(value!)).to.equal('0a');
    const reopened = await RocksDbStore.open(store.location);
    expect(hex((await reopened.get(bytes(2)))!)).to.equal('14');
    await reopened.close();
  });

  it('ends an iteration its consumer left suspended, whose next step is then refused', async () => {
    const store = await RocksDbStore.open(tempDir());
    const batch = store.batch();
    for (let key = 0; key < 1000; key++) batch.put(Uint8Array.of(key >> 8, key & 0xff), bytes(0));
    await batch.write();
    const suspended = store.iterate()[Symbol.asyncIterator]();
    expect(hex((await suspended.next()).value![0])).to.equal('0000');
    await store.close();
    expect(
      await failureOf(async () => {
        for (;;) if ((await suspended.next()).done === true) return;
      }),
    ).to.equal('the database is closed');
  });
});

describe('keys and repositories', () => {
  it('writes numbers big-endian after the bucket byte so that byte order is numeric order', () => {
    expect(hex(bucketKey(Bucket.Meta, 258, bytes(0xab)))).to.equal('00' + '0000000000000102' + 'ab');
    expect(hex(uint64BE(2n ** 64n - 1n))).to.equal('ffffffffffffffff');
    expect(bucketRange(Bucket.Meta)).to.deep.equal({ gte: bytes(0), lt: bytes(1) });
  });

  it('reads typed values, writes through a batch and iterates a numeric range in order', async () => {
    const store = new MemoryStore();
    const heights = new Repository(store, Bucket.Meta, uint64Codec, utf8Codec);
    const batch = store.batch();
    for (const height of [300n, 2n, 256n, 1n]) heights.put(batch, height, `block ${height}`);
    expect(await heights.get(2n)).to.equal(undefined);
    await batch.write();
    expect(await heights.get(256n)).to.equal('block 256');
    const seen: string[] = [];
    for await (const [height, value] of heights.entries({ gte: 2n, lt: 300n })) seen.push(`${height}=${value}`);
    expect(seen).to.deep.equal(['2=block 2', '256=block 256']);
    const last: bigint[] = [];
    for await (const [height] of heights.entries({ reverse: true, limit: 1 })) last.push(height);
    expect(last).to.deep.equal([300n]);
  });
});

describe('database', () => {
  it('writes the schema version into a new database and accepts it on reopening', async () => {
    const home = tempDir();
    const first = await Database.openInHome(home);
    expect(await first.meta.get('schema-version')).to.equal(4n);
    await first.close();
    const second = await Database.openInHome(home);
    await second.close();
  });

  it('refuses a database written with another schema version', async () => {
    const store = new MemoryStore();
    const meta = new Repository(store, Bucket.Meta, utf8Codec, uint64Codec);
    const batch = store.batch();
    meta.put(batch, 'schema-version', 7n);
    await batch.write();
    const error = await Database.open(store).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(isStartupError(error)).to.equal(true);
    expect((error as Error).message).to.equal(
      'the database has schema version 7, but this evmnode reads version 4: start with a new --home, or run the evmnode release that wrote it.',
    );
  });

  it('opens a database of version 3 and marks it version 4, the receipts it writes then being of 4', async () => {
    const store = new MemoryStore();
    const meta = new Repository(store, Bucket.Meta, utf8Codec, uint64Codec);
    const batch = store.batch();
    meta.put(batch, 'schema-version', 3n);
    meta.put(batch, 'head', 12n);
    await batch.write();
    const database = await Database.open(store);
    expect(await database.meta.get('schema-version')).to.equal(4n);
    expect(await database.meta.get('head')).to.equal(12n);
  });

  it('explains a database locked by another process', async () => {
    const home = tempDir();
    const holder = await Database.openInHome(home);
    try {
      const error = await Database.openInHome(home).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(isStartupError(error)).to.equal(true);
      expect((error as Error).message).to.equal(
        `the database at ${path.join(home, 'data')} is locked by another process: another evmnode is probably running with the same home. Stop it, or start this node with a different --home.`,
      );
    } finally {
      await holder.close();
    }
  });
});

describe('head marker', () => {
  const silent = pino({ level: 'silent' });

  it('writes the newest of the heights recorded while a write is pending, atomically, and reads it back', async () => {
    const folder = tempDir();
    const marker = await HeadMarker.open(folder, silent);
    expect(marker.acknowledged).to.equal(undefined);
    for (let height = 1; height <= 50; height++) marker.record(height);
    await marker.flush();
    expect(readdirSync(folder)).to.deep.equal([HEAD_MARKER_FILE]);
    expect(readFileSync(path.join(folder, HEAD_MARKER_FILE), 'utf8')).to.equal('{"height":50}\n');
    expect((await HeadMarker.open(folder, silent)).acknowledged).to.equal(50);
  });

  it('refuses a marker that holds no height, naming the file', async () => {
    const folder = tempDir();
    const file = path.join(folder, HEAD_MARKER_FILE);
    writeFileSync(file, '{"height":');
    const error = await HeadMarker.open(folder, silent).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(isStartupError(error)).to.equal(true);
    expect((error as Error).message).to.equal(
      `the head marker ${file} holds no block height: delete it to start without the check`,
    );
  });
});

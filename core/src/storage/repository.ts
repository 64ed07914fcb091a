import { bucketKey, uint64BE, type Bucket } from './buckets.js';
import type { KvStore, WriteBatch } from './kv-store.js';

/** Converts a value to and from its stored bytes. */
export interface BytesCodec<T> {
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

/** Keys and values as UTF-8 text. */
export const utf8Codec: BytesCodec<string> = {
  encode: (value) => Buffer.from(value, 'utf8'),
  decode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
};

/** Unsigned numbers as 8 big-endian bytes, so that byte order is numeric order. */
export const uint64Codec: BytesCodec<bigint> = {
  encode: uint64BE,
  decode: (bytes) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0),
};

/** Raw bytes, unchanged. */
export const bytesCodec: BytesCodec<Uint8Array> = { encode: (value) => value, decode: (bytes) => bytes };

/** Entries of a repository in key order, optionally bounded. */
export interface RepositoryRange<K> {
  readonly gte?: K;
  readonly lt?: K;
  readonly reverse?: boolean;
  readonly limit?: number;
}

/**
 * A typed view of one bucket. Reads go to the store; writes go into a caller's {@link WriteBatch},
 * so that everything one block changes is committed together.
 */
export class Repository<K, V> {
  constructor(
    private readonly store: KvStore,
    private readonly bucket: Bucket,
    private readonly keys: BytesCodec<K>,
    private readonly values: BytesCodec<V>,
  ) {}

  async get(key: K): Promise<V | undefined> {
    const bytes = await this.store.get(this.#key(key));
    return bytes === undefined ? undefined : this.values.decode(bytes);
  }

  put(batch: WriteBatch, key: K, value: V): void {
    batch.put(this.#key(key), this.values.encode(value));
  }

  del(batch: WriteBatch, key: K): void {
    batch.del(this.#key(key));
  }

  async *entries(range: RepositoryRange<K> = {}): AsyncIterable<readonly [K, V]> {
    const iteration = {
      gte: range.gte === undefined ? Uint8Array.of(this.bucket) : this.#key(range.gte),
      lt: range.lt === undefined ? Uint8Array.of(this.bucket + 1) : this.#key(range.lt),
      reverse: range.reverse === true,
      ...(range.limit === undefined ? {} : { limit: range.limit }),
    };
    for await (const [key, value] of this.store.iterate(iteration)) {
      yield [this.keys.decode(key.subarray(1)), this.values.decode(value)];
    }
  }

  #key(key: K): Uint8Array {
    return bucketKey(this.bucket, this.keys.encode(key));
  }
}

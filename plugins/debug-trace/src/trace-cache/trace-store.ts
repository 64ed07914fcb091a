import { Bucket, bytesCodec, Repository, uint64BE, uint64Codec, type Database } from '@evmnode/core';

/** The tracers whose results are baked, each with the byte that keys its results. */
export const BAKED_TRACERS = { callTracer: 1, flatCallTracer: 2, prestateTracer: 3 } as const;

export type BakedTracer = keyof typeof BAKED_TRACERS;

/** One transaction's baked results: each baked tracer's JSON, as `JSON.stringify` wrote it. */
export interface BakedTransaction {
  readonly index: number;
  readonly results: Readonly<Record<BakedTracer, string>>;
}

/** debug-trace's keys in the plugins' bucket start with its id and a zero byte. */
const OWN_PREFIX = Buffer.from('debug-trace\0', 'utf8');
const RESULT = 0x01;
const BAKED_HEIGHT = 0x02;

/** Keys of this plugin's entries: its prefix, then `parts`. */
const ownKeys = {
  encode: (parts: Uint8Array) => Buffer.concat([OWN_PREFIX, parts]),
  decode: (key: Uint8Array) => key.subarray(OWN_PREFIX.length),
};

function resultKey(tracer: BakedTracer, height: number, index?: number): Uint8Array {
  const position = index === undefined ? [] : [uint32BE(index)];
  return Buffer.concat([Uint8Array.of(RESULT, BAKED_TRACERS[tracer]), uint64BE(height), ...position]);
}

function uint32BE(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value);
  return bytes;
}

/**
 * The trace cache in the node's database: each baked tracer's result by (tracer, height, index),
 * and the height up to which every block is baked.
 */
export class TraceStore {
  readonly #results: Repository<Uint8Array, Uint8Array>;
  readonly #bakedHeight: Repository<Uint8Array, bigint>;

  constructor(private readonly database: Database) {
    this.#results = new Repository(database.store, Bucket.Plugin, ownKeys, bytesCodec);
    this.#bakedHeight = new Repository(database.store, Bucket.Plugin, ownKeys, uint64Codec);
  }

  /** The height up to which every block is baked; undefined before the first. */
  async bakedHeight(): Promise<number | undefined> {
    const height = await this.#bakedHeight.get(Uint8Array.of(BAKED_HEIGHT));
    return height === undefined ? undefined : Number(height);
  }

  /**
   * Stores block `height`'s results (none for a block without EVM transactions) and marks it baked.
   * Written after the block's own batch: a database that lost the block (a cut write-ahead log)
   * lost these too.
   */
  async save(height: number, transactions: readonly BakedTransaction[]): Promise<void> {
    const batch = this.database.batch();
    for (const { index, results } of transactions) {
      for (const tracer of Object.keys(BAKED_TRACERS) as BakedTracer[]) {
        this.#results.put(batch, resultKey(tracer, height, index), Buffer.from(results[tracer], 'utf8'));
      }
    }
    this.#bakedHeight.put(batch, Uint8Array.of(BAKED_HEIGHT), BigInt(height));
    await batch.write();
  }

  /** The baked result of a transaction, as JSON bytes; undefined when it is not baked. */
  transaction(tracer: BakedTracer, height: number, index: number): Promise<Uint8Array | undefined> {
    return this.#results.get(resultKey(tracer, height, index));
  }

  /** The baked results of block `height`'s transactions in block order, as JSON bytes. */
  async block(tracer: BakedTracer, height: number): Promise<Uint8Array[]> {
    const results: Uint8Array[] = [];
    const range = { gte: resultKey(tracer, height), lt: resultKey(tracer, height + 1) };
    for await (const [, json] of this.#results.entries(range)) results.push(json);
    return results;
  }
}

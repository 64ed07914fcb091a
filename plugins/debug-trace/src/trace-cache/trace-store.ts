import { Bucket, bytesCodec, Repository, uint64BE, uint64Codec, type Database } from '@evmnode/core';

/** The tracers whose results are baked, each with the byte that keys its results. */
export const BAKED_TRACERS = { callTracer: 1, flatCallTracer: 2, prestateTracer: 3 } as const;

export type BakedTracer = keyof typeof BAKED_TRACERS;

/** One transaction's baked results: each baked tracer's JSON, as the tracer wrote it. */
export interface BakedTransaction {
  readonly index: number;
  readonly results: Readonly<Record<BakedTracer, string>>;
}

/** debug-trace's keys in the plugins' bucket start with its id and a zero byte. */
const OWN_PREFIX = Buffer.from('debug-trace\0', 'utf8');
const RESULT = 0x01;
const BAKED_HEIGHT = 0x02;
const CODE = 0x03;

/**
 * An account's code in a `prestateTracer` result as printed, with its hash after it. Every call of a
 * contract repeats the code there (3.1 KB of an ERC20 transfer's 3.8), so the stored result refers
 * to one entry of that code, by its hash, instead.
 */
const PRINTED_CODE = /"code":"(0x[0-9a-f]+)","codeHash":"(0x[0-9a-f]{64})"/g;
/** The same, as stored: `#` and the hash where the code was (`#` is no hex digit). */
const CODE_REFERENCE = /"code":"#(0x[0-9a-f]{64})"/g;

/** Keys of this plugin's entries: its prefix, then `parts`. */
const ownKeys = {
  encode: (parts: Uint8Array) => Buffer.concat([OWN_PREFIX, parts]),
  decode: (key: Uint8Array) => key.subarray(OWN_PREFIX.length),
};

function resultKey(tracer: BakedTracer, height: number, index?: number): Uint8Array {
  const position = index === undefined ? [] : [uint32BE(index)];
  return Buffer.concat([Uint8Array.of(RESULT, BAKED_TRACERS[tracer]), uint64BE(height), ...position]);
}

function codeKey(hash: string): Uint8Array {
  return Buffer.concat([Uint8Array.of(CODE), Buffer.from(hash.slice(2), 'hex')]);
}

function uint32BE(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value);
  return bytes;
}

/**
 * The trace cache in the node's database: each baked tracer's result by (tracer, height, index),
 * contract code that `prestateTracer` results refer to by its hash, and the height up to which
 * every block is baked.
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
    const codes = new Map<string, string>();
    for (const { index, results } of transactions) {
      for (const tracer of Object.keys(BAKED_TRACERS) as BakedTracer[]) {
        const json = tracer === 'prestateTracer' ? codeByReference(results[tracer], codes) : results[tracer];
        this.#results.put(batch, resultKey(tracer, height, index), Buffer.from(json, 'utf8'));
      }
    }
    for (const [hash, code] of codes) this.#results.put(batch, codeKey(hash), Buffer.from(code, 'latin1'));
    this.#bakedHeight.put(batch, Uint8Array.of(BAKED_HEIGHT), BigInt(height));
    await batch.write();
  }

  /** The baked result of a transaction, as JSON bytes; undefined when it is not baked. */
  async transaction(tracer: BakedTracer, height: number, index: number): Promise<Uint8Array | undefined> {
    const stored = await this.#results.get(resultKey(tracer, height, index));
    if (stored === undefined || tracer !== 'prestateTracer') return stored;
    return this.#withCode(stored, new Map());
  }

  /**
   * The baked results of block `height`'s transactions in block order, as JSON bytes; undefined
   * when one of them cannot be put back as it was baked.
   */
  async block(tracer: BakedTracer, height: number): Promise<Uint8Array[] | undefined> {
    const results: Uint8Array[] = [];
    const codes = new Map<string, string | undefined>();
    const range = { gte: resultKey(tracer, height), lt: resultKey(tracer, height + 1) };
    for await (const [, stored] of this.#results.entries(range)) {
      const json = tracer === 'prestateTracer' ? await this.#withCode(stored, codes) : stored;
      if (json === undefined) return undefined;
      results.push(json);
    }
    return results;
  }

  /**
   * A stored `prestateTracer` result as it was baked, with the code it refers to put back;
   * undefined if some is missing. `codes` keeps the code read so far by hash, for the other
   * results of the same call.
   */
  async #withCode(stored: Uint8Array, codes: Map<string, string | undefined>): Promise<Uint8Array | undefined> {
    // The JSON is ASCII: latin1 turns it into a string and back byte for byte.
    const json = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString('latin1');
    const hashes = [...json.matchAll(CODE_REFERENCE)].map(([, hash]) => hash!);
    for (const hash of hashes) {
      if (codes.has(hash)) continue;
      const code = await this.#results.get(codeKey(hash));
      codes.set(hash, code === undefined ? undefined : Buffer.from(code).toString('latin1'));
    }
    if (hashes.some((hash) => codes.get(hash) === undefined)) return undefined;
    return hashes.length === 0
      ? stored
      : Buffer.from(
          json.replace(CODE_REFERENCE, (_, hash: string) => `"code":"${codes.get(hash)!}"`),
          'latin1',
        );
  }
}

/** `json` with each printed code replaced by a reference to it, the code added to `codes` by hash. */
function codeByReference(json: string, codes: Map<string, string>): string {
  return json.replace(PRINTED_CODE, (_, code: string, hash: string) => {
    codes.set(hash, code);
    return `"code":"#${hash}","codeHash":"${hash}"`;
  });
}

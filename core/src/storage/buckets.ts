/**
 * One-byte key prefixes. A key is the bucket byte followed by big-endian numbers and raw hashes,
 * so byte order is numeric order and range scans work. Numbers are never reused.
 */
export const Bucket = {
  /** utf-8 name -> value: node-wide metadata such as the schema version and the head height. */
  Meta: 0x00,
  /** trie node key (hash, or code prefix + hash) -> node: the EVM state tries, every version. */
  StateNode: 0x01,
  /** height -> block record (JSON): consensus header, EVM fields, transaction hashes. */
  Block: 0x02,
  /** block hash -> height. */
  BlockHash: 0x03,
  /** height || index (4 bytes) -> raw signed EVM transaction. */
  Transaction: 0x04,
  /** EVM transaction hash -> height || index (4 bytes). */
  TransactionHash: 0x05,
  /**
   * height || index (4 bytes) -> receipt record (JSON) without its logs, which `firstLogIndex` and
   * `logCount` name in Log (schema version 3 held them in the record).
   */
  Receipt: 0x06,
  /** native transaction hash -> EVM transaction hash. */
  NativeToEvm: 0x07,
  /** EVM transaction hash -> native transaction hash. */
  EvmToNative: 0x08,
  /** height || block log index (4 bytes) -> stored log: address and topics, then its JSON (logs/stored-log.ts). */
  Log: 0x09,
  /** address || height -> the block log indexes (4 bytes each) of the block's logs by that emitter. */
  LogByAddress: 0x0a,
  /** topic || position (1 byte) || height -> the block log indexes of the block's logs with that topic there. */
  LogByTopic: 0x0b,
  /** native transaction hash -> its stored result (JSON), for native transactions (not EVM wrappers). */
  NativeTx: 0x0c,
  /** synthetic transaction hash -> synthetic transaction record (JSON). */
  Synthetic: 0x0d,
  /** utf-8 name -> JSON: what genesis fixed for the chain's life, such as its denominations. */
  ChainSettings: 0x0e,
  /**
   * address || topic 0 || height -> the block's logs by that emitter and event, the usual query: each
   * as log index (4 bytes), length (4 bytes) and stored log (logs/log-index.ts).
   */
  LogByAddressTopic: 0x0f,
  /** height || ext-view log index (4 bytes) -> stored synthetic log (`synthetic: true`), for `ext_` log queries. */
  SyntheticLog: 0x10,
  /** plugin id (utf-8) || 0x00 || the plugin's own key -> the plugin's value: data plugins keep for themselves. */
  Plugin: 0x11,
} as const;

export type Bucket = (typeof Bucket)[keyof typeof Bucket];

/** A part of a key: raw bytes, or an unsigned number written as 8 big-endian bytes. */
export type KeyPart = Uint8Array | number | bigint;

/** Writes `value` as 8 big-endian bytes. */
export function uint64BE(value: number | bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(value));
  return bytes;
}

/** The key `bucket || parts...`. */
export function bucketKey(bucket: Bucket, ...parts: readonly KeyPart[]): Uint8Array {
  const encoded = parts.map((part) => (part instanceof Uint8Array ? part : uint64BE(part)));
  const key = new Uint8Array(1 + encoded.reduce((total, part) => total + part.length, 0));
  key[0] = bucket;
  let offset = 1;
  for (const part of encoded) {
    key.set(part, offset);
    offset += part.length;
  }
  return key;
}

/** The range of every key in `bucket`. */
export function bucketRange(bucket: Bucket): { gte: Uint8Array; lt: Uint8Array } {
  return { gte: Uint8Array.of(bucket), lt: Uint8Array.of(bucket + 1) };
}

import { concatBytes, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { encodeStoredLog } from './stored-log.js';
import type { BlockRecord, LogRecord } from '../chain/records.js';
import { Bucket, bucketKey, uint64BE } from '../storage/buckets.js';

/** Where a log is: its block height and block-global log index. */
export interface LogPosition {
  readonly height: number;
  readonly logIndex: number;
}

/** A stored log (logs/stored-log.ts) with its position. */
export interface PositionedLog {
  readonly position: LogPosition;
  readonly stored: Uint8Array;
}

/**
 * An index to scan: logs emitted by an address, logs with a topic at a position (0-3), or logs
 * emitted by an address with a first topic (an event of a contract: the usual query).
 */
export type LogIndexKey =
  | { readonly address: PrefixedHexString }
  | { readonly topic: PrefixedHexString; readonly position: number }
  | { readonly address: PrefixedHexString; readonly topic0: PrefixedHexString };

/** What one block's entry of an index holds: where its logs are, or (event index) the logs themselves. */
export type IndexedBlock = { readonly height: number } & (
  | { readonly kind: 'positions'; readonly positions: LogPosition[] }
  | { readonly kind: 'logs'; readonly logs: PositionedLog[] }
);

/** The key prefix of an index; each entry is the prefix and a height (8 bytes). */
export function logIndexPrefix(key: LogIndexKey): Uint8Array {
  if ('topic0' in key) return bucketKey(Bucket.LogByAddressTopic, hexToBytes(key.address), hexToBytes(key.topic0));
  if ('address' in key) return bucketKey(Bucket.LogByAddress, hexToBytes(key.address));
  return bucketKey(Bucket.LogByTopic, hexToBytes(key.topic), Uint8Array.of(key.position));
}

/** The key of the stored log at `position` in `bucket` (Log, or SyntheticLog). */
export function logKey(position: LogPosition, bucket: Bucket = Bucket.Log): Uint8Array {
  const key = Buffer.allocUnsafe(13);
  key[0] = bucket;
  key.writeBigUInt64BE(BigInt(position.height), 1);
  key.writeUInt32BE(position.logIndex, 9);
  return key;
}

/** The position a stored log's key names. */
export function positionOfLogKey(key: Uint8Array): LogPosition {
  const view = new DataView(key.buffer, key.byteOffset + 1, 12);
  return { height: Number(view.getBigUint64(0)), logIndex: view.getUint32(8) };
}

/**
 * Everything a block writes for its EVM logs: each stored log, and one entry per index key and
 * block. Entries of the emitter and topic indexes list log indexes (4 bytes each); entries of the
 * event index (emitter and first topic) hold the stored logs themselves, each as log index (4),
 * length (4) and bytes, so the usual query reads nothing else. A block's entry per key, not a
 * log's, keeps scans short: reading an entry costs microseconds whatever its size. Made one by
 * one, so that the block's writer gives other work turns between them: encoding a block of
 * 28,000 logs takes about 250 ms.
 */
export function* blockLogEntries(
  block: BlockRecord,
  logs: readonly LogRecord[],
): Generator<[Uint8Array, Uint8Array], void, undefined> {
  const positionLists = new Map<string, { key: LogIndexKey; indexes: number[] }>();
  const eventLogs = new Map<string, { key: LogIndexKey; parts: Uint8Array[] }>();
  const listPosition = (key: LogIndexKey, logIndex: number) => {
    const id = indexId(key);
    const list = positionLists.get(id) ?? { key, indexes: [] };
    list.indexes.push(logIndex);
    positionLists.set(id, list);
  };
  for (const log of logs) {
    const stored = encodeStoredLog(log, block.hash, block.height);
    yield [logKey({ height: block.height, logIndex: log.logIndex }), stored];
    for (const key of listingKeysOf(log)) listPosition(key, log.logIndex);
    const key = eventKeyOf(log);
    if (key === undefined) continue;
    const id = indexId(key);
    const event = eventLogs.get(id) ?? { key, parts: [] };
    const header = Buffer.allocUnsafe(8);
    header.writeUInt32BE(log.logIndex, 0);
    header.writeUInt32BE(stored.length, 4);
    event.parts.push(header, stored);
    eventLogs.set(id, event);
  }
  const height = uint64BE(block.height);
  for (const { key, indexes } of positionLists.values()) {
    const value = Buffer.allocUnsafe(4 * indexes.length);
    indexes.forEach((logIndex, index) => value.writeUInt32BE(logIndex, 4 * index));
    yield [concatBytes(logIndexPrefix(key), height), value];
  }
  for (const { key, parts } of eventLogs.values()) {
    yield [concatBytes(logIndexPrefix(key), height), Buffer.concat(parts)];
  }
}

/** The keys of the indexes that list a log's position: its emitter's, and each of its topics'. */
function listingKeysOf(log: Pick<LogRecord, 'address' | 'topics'>): LogIndexKey[] {
  return [{ address: log.address }, ...log.topics.map((topic, position) => ({ topic, position }))];
}

/** The key of the event index that holds a log itself: its emitter and first topic, if it has one. */
function eventKeyOf(log: Pick<LogRecord, 'address' | 'topics'>): LogIndexKey | undefined {
  const [topic0] = log.topics;
  return topic0 === undefined ? undefined : { address: log.address, topic0 };
}

/** The keys of the index entries of block `height` that name a log: those {@link blockLogEntries} writes for it. */
export function logIndexEntryKeys(log: Pick<LogRecord, 'address' | 'topics'>, height: number): Uint8Array[] {
  const event = eventKeyOf(log);
  const keys = event === undefined ? listingKeysOf(log) : [...listingKeysOf(log), event];
  return keys.map((key) => concatBytes(logIndexPrefix(key), uint64BE(height)));
}

/** A string naming an index key, to group a block's entries (each kind has its own length). */
function indexId(key: LogIndexKey): string {
  if ('topic0' in key) return `${key.address}${key.topic0}`;
  return 'address' in key ? key.address : `${key.position}${key.topic}`;
}

/** Decodes one block's entry of the index `key`. */
export function decodeIndexedBlock(key: LogIndexKey, height: number, value: Uint8Array): IndexedBlock {
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (!('topic0' in key)) {
    const positions: LogPosition[] = [];
    for (let offset = 0; offset < bytes.length; offset += 4) {
      positions.push({ height, logIndex: bytes.readUInt32BE(offset) });
    }
    return { height, kind: 'positions', positions };
  }
  const logs: PositionedLog[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const logIndex = bytes.readUInt32BE(offset);
    const length = bytes.readUInt32BE(offset + 4);
    logs.push({ position: { height, logIndex }, stored: bytes.subarray(offset + 8, offset + 8 + length) });
    offset += 8 + length;
  }
  return { height, kind: 'logs', logs };
}

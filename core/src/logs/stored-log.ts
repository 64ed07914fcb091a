import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { LogMatcher } from './log-criteria.js';
import type { LogRecord } from '../chain/records.js';
import { formatLog } from '../views/log-json.js';

const ADDRESS_BYTES = 20;
const TOPIC_BYTES = 32;

/**
 * A log as the Log bucket holds it: its address and topics in binary, for matching without
 * parsing, then its `eth_` JSON text, which log queries serve as it is.
 * Layout: address (20) || topic count (1) || topics (32 each) || UTF-8 JSON.
 */
export function encodeStoredLog(
  log: LogRecord,
  blockHash: PrefixedHexString,
  height: number,
  synthetic?: boolean,
): Uint8Array {
  const json = Buffer.from(JSON.stringify(formatLog(log, blockHash, height, synthetic)), 'utf8');
  const headerLength = ADDRESS_BYTES + 1 + TOPIC_BYTES * log.topics.length;
  const bytes = Buffer.allocUnsafe(headerLength + json.length);
  bytes.set(hexToBytes(log.address), 0);
  bytes[ADDRESS_BYTES] = log.topics.length;
  log.topics.forEach((topic, position) => bytes.set(hexToBytes(topic), ADDRESS_BYTES + 1 + TOPIC_BYTES * position));
  bytes.set(json, headerLength);
  return bytes;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function jsonOffset(bytes: Uint8Array): number {
  return ADDRESS_BYTES + 1 + TOPIC_BYTES * bytes[ADDRESS_BYTES]!;
}

/** Whether a stored log matches. */
export function storedLogMatches(stored: Uint8Array, matcher: LogMatcher): boolean {
  const bytes = asBuffer(stored);
  const topics: string[] = [];
  for (let position = 0; position < bytes[ADDRESS_BYTES]!; position++) {
    const start = ADDRESS_BYTES + 1 + TOPIC_BYTES * position;
    topics.push(`0x${bytes.toString('hex', start, start + TOPIC_BYTES)}`);
  }
  return matcher.matches(`0x${bytes.toString('hex', 0, ADDRESS_BYTES)}`, topics);
}

/** A stored log's `eth_` JSON, as UTF-8 bytes (a view of `stored`, not a copy). */
export function storedLogJson(stored: Uint8Array): Buffer {
  return asBuffer(stored).subarray(jsonOffset(stored));
}

/** A log's `eth_` JSON, as `formatLog` makes it. */
type LogJson = Omit<LogRecord, 'logIndex' | 'transactionIndex'> & {
  readonly logIndex: PrefixedHexString;
  readonly transactionIndex: PrefixedHexString;
};

/** The record a log's `eth_` JSON was made from. */
export function logRecordOfJson(log: LogJson): LogRecord {
  return {
    address: log.address,
    topics: log.topics,
    data: log.data,
    logIndex: Number(log.logIndex),
    transactionIndex: Number(log.transactionIndex),
    transactionHash: log.transactionHash,
  };
}

/** The record a stored log was written from (`encodeStoredLog`), read back from its JSON. */
export function storedLogRecord(stored: Uint8Array): LogRecord {
  return logRecordOfJson(JSON.parse(storedLogJson(stored).toString('utf8')) as LogJson);
}

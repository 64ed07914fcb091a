import type { BlockRecord, LogRecord, ReceiptRecord } from '../chain/records.js';
import type { Turns } from '../rpc/event-loop-turns.js';
import { JsonArrayPacker } from '../rpc/raw-json.js';
import type { GatheredLogsRoom } from '../logs/gathered-logs-room.js';
import { formatLog } from './log-json.js';
import { storedLogJson, storedLogRecord } from '../logs/stored-log.js';
import { toQuantity } from '../rpc/hex-codecs.js';

/**
 * Where a legacy view puts an EVM receipt: after `transactions` synthetic transactions and
 * `logs` synthetic logs, and with each log saying whether it is synthetic (decisions.md D5).
 */
export interface ReceiptShift {
  readonly transactions: number;
  readonly logs: number;
}

/**
 * A stored receipt in geth's JSON shape: geth writes every key, so `contractAddress` is null but on
 * creations and `to` is null on them.
 */
export function formatReceipt(
  receipt: ReceiptRecord,
  block: BlockRecord,
  shift?: ReceiptShift,
): Record<string, unknown> {
  return {
    ...fieldsBeforeLogs(receipt, block),
    logs: receipt.logs.map((log) => formatReceiptLog(log, block, shift)),
    ...fieldsAfterLogs(receipt, shift),
  };
}

/** Logs formatted between two questions whether to give other work a turn. */
const LOGS_PER_PAUSE = 256;

/**
 * A receipt's logs: in hand, or as the Log bucket stores them (logs/stored-log.ts), read in turns
 * of the event loop as they are needed.
 */
export type ReceiptLogs = { readonly records: readonly LogRecord[] } | { readonly stored: AsyncIterable<Uint8Array> };

/**
 * Appends {@link formatReceipt}'s JSON to `parts`, its logs packed in turns of the event loop: a
 * receipt of 28,000 logs took 110 ms of the node's thread to format and write in one turn. Stored
 * logs are their stored JSON, unless a legacy view shifts them. Each log takes its room in `room`
 * first: a receipt of 140,000 logs is 46 MB of JSON, and ten made at once took the node past 1 GB.
 */
export async function appendReceiptJson(
  parts: Uint8Array[],
  receipt: Omit<ReceiptRecord, 'logs'>,
  logs: ReceiptLogs,
  block: BlockRecord,
  shift: ReceiptShift | undefined,
  turns: Turns,
  room: Pick<GatheredLogsRoom, 'take'>,
): Promise<void> {
  parts.push(Buffer.from(`${JSON.stringify(fieldsBeforeLogs(receipt, block)).slice(0, -1)},"logs":`));
  const packer = new JsonArrayPacker();
  const append = (json: Buffer) => {
    room.take(json.length);
    packer.append(json);
  };
  const formatted = (log: LogRecord) => Buffer.from(JSON.stringify(formatReceiptLog(log, block, shift)));
  if ('records' in logs) {
    for (const [index, log] of logs.records.entries()) {
      if (index % LOGS_PER_PAUSE === 0) await turns.pause();
      append(formatted(log));
    }
  } else {
    for await (const stored of logs.stored) {
      append(shift === undefined ? storedLogJson(stored) : formatted(storedLogRecord(stored)));
    }
  }
  for (const part of packer.end().parts) parts.push(part);
  parts.push(Buffer.from(`,${JSON.stringify(fieldsAfterLogs(receipt, shift)).slice(1)}`));
}

function fieldsBeforeLogs(receipt: Omit<ReceiptRecord, 'logs'>, block: BlockRecord): Record<string, unknown> {
  return {
    blockHash: block.hash,
    blockNumber: toQuantity(block.height),
    contractAddress: receipt.contractAddress,
    cumulativeGasUsed: receipt.cumulativeGasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
    from: receipt.from,
    gasUsed: receipt.gasUsed,
  };
}

function fieldsAfterLogs(
  receipt: Omit<ReceiptRecord, 'logs'>,
  shift: ReceiptShift | undefined,
): Record<string, unknown> {
  return {
    logsBloom: receipt.logsBloom,
    status: toQuantity(receipt.status),
    to: receipt.to,
    transactionHash: receipt.transactionHash,
    transactionIndex: toQuantity(receipt.transactionIndex + (shift?.transactions ?? 0)),
    type: receipt.type,
  };
}

function formatReceiptLog(
  log: LogRecord,
  block: BlockRecord,
  shift: ReceiptShift | undefined,
): Record<string, unknown> {
  if (shift === undefined) return formatLog(log, block.hash, block.height);
  return formatLog(
    {
      ...log,
      logIndex: log.logIndex + shift.logs,
      transactionIndex: log.transactionIndex + shift.transactions,
    },
    block.hash,
    block.height,
    false,
  );
}

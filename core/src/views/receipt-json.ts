import type { BlockRecord, ReceiptRecord } from '../chain/records.js';
import { formatLog } from './log-json.js';
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
    blockHash: block.hash,
    blockNumber: toQuantity(block.height),
    contractAddress: receipt.contractAddress,
    cumulativeGasUsed: receipt.cumulativeGasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
    from: receipt.from,
    gasUsed: receipt.gasUsed,
    logs: receipt.logs.map((log) =>
      shift === undefined
        ? formatLog(log, block.hash, block.height)
        : formatLog(
            {
              ...log,
              logIndex: log.logIndex + shift.logs,
              transactionIndex: log.transactionIndex + shift.transactions,
            },
            block.hash,
            block.height,
            false,
          ),
    ),
    logsBloom: receipt.logsBloom,
    status: toQuantity(receipt.status),
    to: receipt.to,
    transactionHash: receipt.transactionHash,
    transactionIndex: toQuantity(receipt.transactionIndex + (shift?.transactions ?? 0)),
    type: receipt.type,
  };
}

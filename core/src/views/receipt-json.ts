import type { BlockRecord, ReceiptRecord } from '../chain/records.js';
import { formatLog } from './log-json.js';
import { toQuantity } from '../rpc/hex-codecs.js';

/**
 * A stored receipt in geth's JSON shape: geth writes every key, so `contractAddress` is null but on
 * creations and `to` is null on them.
 */
export function formatReceipt(receipt: ReceiptRecord, block: BlockRecord): Record<string, unknown> {
  return {
    blockHash: block.hash,
    blockNumber: toQuantity(block.height),
    contractAddress: receipt.contractAddress,
    cumulativeGasUsed: receipt.cumulativeGasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
    from: receipt.from,
    gasUsed: receipt.gasUsed,
    logs: receipt.logs.map((log) => formatLog(log, block.hash, block.height)),
    logsBloom: receipt.logsBloom,
    status: toQuantity(receipt.status),
    to: receipt.to,
    transactionHash: receipt.transactionHash,
    transactionIndex: toQuantity(receipt.transactionIndex),
    type: receipt.type,
  };
}

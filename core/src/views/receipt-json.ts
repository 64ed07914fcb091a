import type { BlockRecord, ReceiptRecord } from '../chain/records.js';
import { toQuantity } from '../rpc/hex-codecs.js';

/** A stored receipt in geth's JSON shape: `contractAddress` only on creations, `to` absent on them. */
export function formatReceipt(receipt: ReceiptRecord, block: BlockRecord): Record<string, unknown> {
  const blockNumber = toQuantity(block.height);
  return {
    blockHash: block.hash,
    blockNumber,
    ...(receipt.contractAddress === null ? {} : { contractAddress: receipt.contractAddress }),
    cumulativeGasUsed: receipt.cumulativeGasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
    from: receipt.from,
    gasUsed: receipt.gasUsed,
    logs: receipt.logs.map((log) => ({
      address: log.address,
      topics: log.topics,
      data: log.data,
      blockNumber,
      transactionHash: log.transactionHash,
      transactionIndex: toQuantity(log.transactionIndex),
      blockHash: block.hash,
      logIndex: toQuantity(log.logIndex),
      removed: false,
    })),
    logsBloom: receipt.logsBloom,
    status: toQuantity(receipt.status),
    ...(receipt.to === null ? {} : { to: receipt.to }),
    transactionHash: receipt.transactionHash,
    transactionIndex: toQuantity(receipt.transactionIndex),
    type: receipt.type,
  };
}

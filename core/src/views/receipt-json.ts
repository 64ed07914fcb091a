import type { BlockRecord, ReceiptRecord } from '../chain/records.js';

const hex = (value: number): string => `0x${value.toString(16)}`;

/** A stored receipt in geth's JSON shape: `contractAddress` only on creations, `to` absent on them. */
export function formatReceipt(receipt: ReceiptRecord, block: BlockRecord): Record<string, unknown> {
  const blockNumber = hex(block.height);
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
      transactionIndex: hex(log.transactionIndex),
      blockHash: block.hash,
      logIndex: hex(log.logIndex),
      removed: false,
    })),
    logsBloom: receipt.logsBloom,
    status: hex(receipt.status),
    ...(receipt.to === null ? {} : { to: receipt.to }),
    transactionHash: receipt.transactionHash,
    transactionIndex: hex(receipt.transactionIndex),
    type: receipt.type,
  };
}

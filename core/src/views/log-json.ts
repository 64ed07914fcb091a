import type { PrefixedHexString } from '@ethereumjs/util';
import type { LogRecord } from '../chain/records.js';
import { toQuantity } from '../rpc/hex-codecs.js';

/** A stored log in geth's JSON shape (interface.md §2.5), in the block `blockHash` at `height`. */
export function formatLog(log: LogRecord, blockHash: PrefixedHexString, height: number): Record<string, unknown> {
  return {
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: toQuantity(height),
    transactionHash: log.transactionHash,
    transactionIndex: toQuantity(log.transactionIndex),
    blockHash,
    logIndex: toQuantity(log.logIndex),
    removed: false,
  };
}

import type { PrefixedHexString } from '@ethereumjs/util';
import type { LogRecord } from '../chain/records.js';
import { toQuantity } from '../rpc/hex-codecs.js';

/**
 * A stored log in geth's JSON shape (interface.md §2.5), in the block `blockHash` at `height`.
 * `synthetic` is given in the `ext` view only, where every log says whether it is one.
 */
export function formatLog(
  log: LogRecord,
  blockHash: PrefixedHexString,
  height: number,
  synthetic?: boolean,
): Record<string, unknown> {
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
    ...(synthetic === undefined ? {} : { synthetic }),
  };
}

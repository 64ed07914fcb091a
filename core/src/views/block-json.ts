import type { PrefixedHexString } from '@ethereumjs/util';
import type { BlockRecord } from '../chain/records.js';
import { toQuantity } from '../rpc/hex-codecs.js';

/** keccak256(RLP([])): the uncle hash of a block without uncles. */
const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const ZERO_HASH = `0x${'00'.repeat(32)}`;

/**
 * A block header in geth's shape, as `newHeads` notifications carry it: the fields of
 * {@link formatBlock} without the body (transactions, uncles, size, total difficulty).
 */
export function formatHeader(block: BlockRecord): Record<string, unknown> {
  return {
    baseFeePerGas: block.baseFeePerGas,
    difficulty: '0x0',
    extraData: '0x',
    gasLimit: block.gasLimit,
    gasUsed: block.gasUsed,
    hash: block.hash,
    logsBloom: block.logsBloom,
    miner: block.header.proposer,
    mixHash: ZERO_HASH,
    nonce: '0x0000000000000000',
    number: toQuantity(block.height),
    parentHash: block.header.parentHash,
    receiptsRoot: block.receiptsRoot,
    sha3Uncles: EMPTY_UNCLES_HASH,
    stateRoot: block.stateRoot,
    timestamp: block.timestamp,
    transactionsRoot: block.header.dataHash,
  };
}

/**
 * A block in geth's shape (interface.md §2.12): pre-merge fields are placeholders, `miner` is the
 * proposer, `transactionsRoot` is the consensus header's data hash, and `totalDifficulty` (0x0)
 * comes with full transactions only.
 */
export function formatBlock(
  block: BlockRecord,
  transactions: readonly PrefixedHexString[] | readonly Record<string, unknown>[],
  fullTransactions: boolean,
): Record<string, unknown> {
  return {
    ...formatHeader(block),
    size: toQuantity(block.size),
    ...(fullTransactions ? { totalDifficulty: '0x0' } : {}),
    transactions,
    uncles: [],
  };
}

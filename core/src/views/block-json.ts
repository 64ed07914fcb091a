import type { PrefixedHexString } from '@ethereumjs/util';
import type { BlockRecord } from '../chain/records.js';
import { toQuantity } from '../rpc/hex-codecs.js';

/** keccak256(RLP([])): the uncle hash of a block without uncles. */
const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const ZERO_HASH = `0x${'00'.repeat(32)}`;
/** keccak256(RLP('')): the root of an empty trie. */
const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/**
 * A block view's `transactionsRoot`: the consensus header's data hash, or the empty trie root when
 * the view lists no transactions (genesis, an empty block, a block of native transactions only in
 * the `eth` view), as the reference node writes it.
 */
function transactionsRootOf(block: BlockRecord, transactionCount: number): PrefixedHexString {
  return transactionCount === 0 ? EMPTY_TRIE_ROOT : block.header.dataHash;
}

/**
 * A block header in geth's shape, as `newHeads` notifications carry it: the fields of
 * {@link formatBlock} without the body (transactions, uncles, size, total difficulty).
 * `transactionCount` is how many transactions the view lists; the `eth` view's by default.
 */
export function formatHeader(
  block: BlockRecord,
  transactionCount: number = block.transactions.length,
): Record<string, unknown> {
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
    transactionsRoot: transactionsRootOf(block, transactionCount),
  };
}

/**
 * A block in geth's shape (interface.md §2.12): pre-merge fields are placeholders, `miner` is the
 * proposer, `transactionsRoot` is the consensus header's data hash (the empty trie root when
 * `transactions` is empty), and `totalDifficulty` (0x0) comes with full transactions only.
 */
export function formatBlock(
  block: BlockRecord,
  transactions: readonly PrefixedHexString[] | readonly Record<string, unknown>[],
  fullTransactions: boolean,
): Record<string, unknown> {
  return {
    ...formatHeader(block, transactions.length),
    size: toQuantity(block.size),
    ...(fullTransactions ? { totalDifficulty: '0x0' } : {}),
    transactions,
    uncles: [],
  };
}

import type { BlockRecord, SyntheticTxRecord } from '../chain/records.js';
import { toQuantity } from '../rpc/hex-codecs.js';

/**
 * A synthetic transaction in a transaction's shape (interface.md §2.6): zero signature and gas
 * fields, `synthetic: true`, at its place in a legacy view of its block.
 */
export function formatSyntheticTransaction(
  synthetic: SyntheticTxRecord,
  block: BlockRecord,
  index: number,
): Record<string, unknown> {
  return {
    blockHash: block.hash,
    blockNumber: toQuantity(block.height),
    blockTimestamp: block.timestamp,
    from: synthetic.from,
    gas: '0x0',
    gasPrice: '0x0',
    hash: synthetic.hash,
    input: synthetic.input,
    nonce: '0x0',
    to: synthetic.to,
    transactionIndex: toQuantity(index),
    value: synthetic.value,
    type: '0x0',
    v: '0x0',
    r: '0x0',
    s: '0x0',
    synthetic: true,
  };
}

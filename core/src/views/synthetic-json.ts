import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { Bloom } from '@ethereumjs/vm';
import { formatLog } from './log-json.js';
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

/** The receipt type of a synthetic transaction (decisions.md D5). */
const SYNTHETIC_RECEIPT_TYPE = '0xffffffff';

/**
 * A synthetic transaction's receipt at `index` in a legacy view: status 1, no gas, and a pointer
 * transfer's `Transfer` log (numbered in the view, where synthetic logs come first).
 */
export function formatSyntheticReceipt(
  synthetic: SyntheticTxRecord,
  block: BlockRecord,
  index: number,
): Record<string, unknown> {
  const bloom = new Bloom();
  for (const log of synthetic.logs) {
    bloom.add(hexToBytes(log.address));
    for (const topic of log.topics) bloom.add(hexToBytes(topic));
  }
  return {
    blockHash: block.hash,
    blockNumber: toQuantity(block.height),
    contractAddress: null,
    cumulativeGasUsed: '0x0',
    effectiveGasPrice: '0x0',
    from: synthetic.from,
    gasUsed: '0x0',
    logs: synthetic.logs.map((log) => formatLog({ ...log, transactionIndex: index }, block.hash, block.height, true)),
    logsBloom: bytesToHex(bloom.bitvector),
    status: '0x1',
    to: synthetic.to,
    transactionHash: synthetic.hash,
    transactionIndex: toQuantity(index),
    type: SYNTHETIC_RECEIPT_TYPE,
  };
}

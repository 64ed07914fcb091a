import { blockNumberOrTag, blockRef, blockRefOf, blockRefOfHash } from '../rpc/block-codecs.js';
import { codec, CodecError, isCodecError } from '../rpc/codec.js';
import { defineMethod } from '../rpc/define-method.js';
import { hash, uint64 } from '../rpc/hex-codecs.js';
import { boolean } from '../rpc/structural-codecs.js';
import type { BlockView, ChainViews } from '../api/chain-views.js';

/** Which namespace a set of view methods is served under, and the view its answers take. */
export interface ViewNamespace {
  readonly prefix: 'eth' | 'ext' | 'ext2';
  readonly view: BlockView;
}

/**
 * geth's `hexutil.Uint`, the type of a transaction index: read as a 64-bit quantity, with its own
 * type name in errors (`... into Go value of type hexutil.Uint`).
 */
const uint = codec('hexutil.Uint', (value): bigint => {
  try {
    return uint64.decode(value);
  } catch (error) {
    if (isCodecError(error) && error.goType !== undefined) throw new CodecError(error.reason, 'hexutil.Uint');
    throw error;
  }
});

/**
 * Blocks by number or hash, their transaction counts and receipts, in one view (interface.md §4.4,
 * §4.11): the `eth_` methods and their legacy namesakes share these definitions.
 */
export function blockViewMethods(views: ChainViews, { prefix, view }: ViewNamespace) {
  return [
    defineMethod({
      name: `${prefix}_getBlockByNumber`,
      params: [blockNumberOrTag, boolean],
      handler: ([number, full]) => views.blockJson(blockRefOf(number), full, view),
    }),
    defineMethod({
      name: `${prefix}_getBlockByHash`,
      params: [hash, boolean],
      handler: ([blockHash, full]) => views.blockJson(blockRefOfHash(blockHash), full, view),
    }),
    defineMethod({
      name: `${prefix}_getBlockTransactionCountByNumber`,
      params: [blockNumberOrTag],
      handler: ([number]) => views.transactionCount(blockRefOf(number), view),
    }),
    defineMethod({
      name: `${prefix}_getBlockTransactionCountByHash`,
      params: [hash],
      handler: ([blockHash]) => views.transactionCount(blockRefOfHash(blockHash), view),
    }),
    defineMethod({
      name: `${prefix}_getBlockReceipts`,
      params: [blockRef],
      handler: ([block]) => views.blockReceiptsJson(block, view),
    }),
  ];
}

/** Transactions by hash or position and their receipts, in one view (interface.md §4.2, §4.11). */
export function transactionViewMethods(views: ChainViews, { prefix, view }: ViewNamespace) {
  return [
    defineMethod({
      name: `${prefix}_getTransactionByHash`,
      params: [hash],
      handler: ([txHash]) => views.transactionByHash(txHash, view),
    }),
    defineMethod({
      name: `${prefix}_getTransactionReceipt`,
      params: [hash],
      handler: ([txHash]) => views.receiptJson(txHash, view),
    }),
    defineMethod({
      name: `${prefix}_getTransactionByBlockNumberAndIndex`,
      params: [blockNumberOrTag, uint],
      handler: ([number, index]) => views.transactionAt(blockRefOf(number), index, view),
    }),
    defineMethod({
      name: `${prefix}_getTransactionByBlockHashAndIndex`,
      params: [hash, uint],
      handler: ([blockHash, index]) => views.transactionAt(blockRefOfHash(blockHash), index, view),
    }),
  ];
}

import {
  blockNumberOrTag,
  blockRef,
  blockRefOf,
  blockRefOfHash,
  boolean,
  defineMethod,
  hash,
  type ChainViews,
} from '@evmnode/core';

const byNumber = blockNumberOrTag;

/** §4.4: blocks by number or hash, their transaction counts and receipts; unknown blocks read as null. */
export function blockMethods(views: ChainViews) {
  return [
    defineMethod({
      name: 'eth_getBlockByNumber',
      params: [byNumber, boolean],
      handler: ([number, full]) => views.blockJson(blockRefOf(number), full),
    }),
    defineMethod({
      name: 'eth_getBlockByHash',
      params: [hash, boolean],
      handler: ([blockHash, full]) => views.blockJson(blockRefOfHash(blockHash), full),
    }),
    defineMethod({
      name: 'eth_getBlockTransactionCountByNumber',
      params: [byNumber],
      handler: ([number]) => views.transactionCount(blockRefOf(number)),
    }),
    defineMethod({
      name: 'eth_getBlockTransactionCountByHash',
      params: [hash],
      handler: ([blockHash]) => views.transactionCount(blockRefOfHash(blockHash)),
    }),
    defineMethod({
      name: 'eth_getBlockReceipts',
      params: [blockRef],
      handler: ([block]) => views.blockReceipts(block),
    }),
  ];
}

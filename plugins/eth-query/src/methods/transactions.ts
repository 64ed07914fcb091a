import {
  address,
  defineMethod,
  nonceAndErrorMethods,
  transactionViewMethods,
  type ChainReader,
  type ChainViews,
  type TxPoolReader,
} from '@evmnode/core';

/** §4.2: transactions by hash or position, receipts, nonces and VM errors. */
export function transactionMethods(chain: ChainReader, pool: TxPoolReader, views: ChainViews) {
  return [
    ...transactionViewMethods(views, { prefix: 'eth', view: 'eth' }),
    ...nonceAndErrorMethods(chain, pool, 'eth'),
    defineMethod({
      name: 'eth_getNonce',
      params: [address],
      // A bare integer, not a quantity (interface.md §4.2).
      handler: async ([who]) => Number((await chain.accountAtHead(who)).nonce),
    }),
  ];
}

import {
  address,
  blockRef,
  defineMethod,
  hash,
  InvalidInputError,
  LATEST_BLOCK,
  toQuantity,
  transactionViewMethods,
  type ChainReader,
  type TxPoolReader,
  type ChainViews,
} from '@evmnode/core';

/** §4.2: transactions by hash or position, receipts, nonces and VM errors. */
export function transactionMethods(chain: ChainReader, pool: TxPoolReader, views: ChainViews) {
  /** The VM error of a committed transaction, or undefined when it is unknown. */
  async function vmErrorOf(txHash: `0x${string}`): Promise<string | undefined> {
    const location = await chain.locationOf(txHash);
    if (location === undefined) return undefined;
    return (await chain.receiptAt(location))?.vmError;
  }

  return [
    ...transactionViewMethods(views, { prefix: 'eth', view: 'eth' }),
    defineMethod({
      name: 'eth_getTransactionCount',
      params: [address, blockRef.optional(LATEST_BLOCK)],
      handler: async ([who, block]) => {
        if (block.kind === 'tag' && block.tag === 'pending') return toQuantity(await pool.pendingNonce(who));
        const { nonce } = await chain.accountAt(who, await chain.resolveHeight(block));
        return toQuantity(nonce);
      },
    }),
    defineMethod({
      name: 'eth_getNonce',
      params: [address],
      // A bare integer, not a quantity (interface.md §4.2).
      handler: async ([who]) => Number((await chain.accountAtHead(who)).nonce),
    }),
    defineMethod({
      name: 'eth_getVMError',
      params: [hash],
      handler: async ([txHash]) => {
        const vmError = await vmErrorOf(txHash);
        if (vmError === undefined) throw new InvalidInputError('receipt not found');
        return vmError;
      },
    }),
    defineMethod({
      name: 'eth_getTransactionErrorByHash',
      params: [hash],
      handler: async ([txHash]) => (await vmErrorOf(txHash)) ?? '',
    }),
  ];
}

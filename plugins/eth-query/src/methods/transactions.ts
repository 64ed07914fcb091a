import {
  address,
  blockNumberOrTag,
  blockRef,
  blockRefOf,
  blockRefOfHash,
  codec,
  CodecError,
  defineMethod,
  hash,
  InvalidInputError,
  isCodecError,
  LATEST_BLOCK,
  toQuantity,
  uint64,
  type ChainReader,
  type TxPoolReader,
  type ChainViews,
} from '@evmnode/core';

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

/** §4.2: transactions by hash or position, receipts, nonces and VM errors. */
export function transactionMethods(chain: ChainReader, pool: TxPoolReader, views: ChainViews) {
  /** The VM error of a committed transaction, or undefined when it is unknown. */
  async function vmErrorOf(txHash: `0x${string}`): Promise<string | undefined> {
    const location = await chain.locationOf(txHash);
    if (location === undefined) return undefined;
    return (await chain.receiptAt(location))?.vmError;
  }

  return [
    defineMethod({
      name: 'eth_getTransactionByHash',
      params: [hash],
      handler: ([txHash]) => views.transactionByHash(txHash),
    }),
    defineMethod({ name: 'eth_getTransactionReceipt', params: [hash], handler: ([txHash]) => views.receipt(txHash) }),
    defineMethod({
      name: 'eth_getTransactionByBlockNumberAndIndex',
      params: [blockNumberOrTag, uint],
      handler: ([number, index]) => views.transactionAt(blockRefOf(number), index),
    }),
    defineMethod({
      name: 'eth_getTransactionByBlockHashAndIndex',
      params: [hash, uint],
      handler: ([blockHash, index]) => views.transactionAt(blockRefOfHash(blockHash), index),
    }),
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

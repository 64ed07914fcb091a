import {
  address,
  blockNumberOrTag,
  blockRef,
  blockRefOf,
  defineMethod,
  hash,
  InvalidInputError,
  uint64,
  type Chain,
  type ChainViews,
} from '@evmnode/core';

const LATEST = { kind: 'tag', tag: 'latest' } as const;
const quantity = (value: bigint): string => `0x${value.toString(16)}`;

/** §4.2: transactions by hash or position, receipts, nonces and VM errors. */
export function transactionMethods(chain: Chain, views: ChainViews) {
  /** The VM error of a committed transaction, or undefined when it is unknown. */
  async function vmErrorOf(txHash: `0x${string}`): Promise<string | undefined> {
    const location = await chain.store.locationOf(txHash);
    if (location === undefined) return undefined;
    return (await chain.store.receiptAt(location))?.vmError;
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
      params: [blockNumberOrTag, uint64],
      handler: ([number, index]) => views.transactionAt(blockRefOf(number), index),
    }),
    defineMethod({
      name: 'eth_getTransactionByBlockHashAndIndex',
      params: [hash, uint64],
      handler: ([blockHash, index]) =>
        views.transactionAt({ kind: 'hash', hash: blockHash, requireCanonical: false }, index),
    }),
    defineMethod({
      name: 'eth_getTransactionCount',
      params: [address, blockRef.optional(LATEST)],
      handler: async ([who, block]) => {
        if (block.kind === 'tag' && block.tag === 'pending') {
          const { nonce } = await chain.accountAtHead(who);
          return quantity(chain.pool.pendingNonce(who, nonce));
        }
        const { nonce } = await chain.accountAt(who, await chain.resolveHeight(block));
        return quantity(nonce);
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

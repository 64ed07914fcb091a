import { address, blockRef, defineMethod, hash, type Chain, type MethodDefinition } from '@evmnode/core';
import { formatReceipt } from '../format/receipt.js';

const LATEST = { kind: 'tag', tag: 'latest' } as const;

/** `eth_blockNumber`, `eth_getBalance` (at any height) and `eth_getTransactionReceipt`. */
export function chainReadMethods(chain: Chain): MethodDefinition[] {
  return [
    defineMethod({ name: 'eth_blockNumber', params: [], handler: () => `0x${chain.head().height.toString(16)}` }),
    defineMethod({
      name: 'eth_getBalance',
      params: [address, blockRef.optional(LATEST)],
      handler: async ([who, block]) => {
        const { balance } = await chain.accountAt(who, await chain.resolveHeight(block));
        return `0x${balance.toString(16)}`;
      },
    }),
    defineMethod({
      name: 'eth_getTransactionReceipt',
      params: [hash],
      handler: async ([txHash]) => {
        const location = await chain.store.locationOf(txHash);
        if (location === undefined) return null;
        const [receipt, block] = await Promise.all([
          chain.store.receiptAt(location),
          chain.store.blockAt(location.height),
        ]);
        return receipt === undefined || block === undefined ? null : formatReceipt(receipt, block);
      },
    }),
  ];
}

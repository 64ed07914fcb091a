import type { ChainReader } from '../api/chain-reader.js';
import type { TxPoolReader } from '../api/tx-pool-reader.js';
import { InvalidInputError } from '../errors/rpc-error.js';
import { blockRef, LATEST_BLOCK } from '../rpc/block-codecs.js';
import { defineMethod } from '../rpc/define-method.js';
import { address, hash, toQuantity } from '../rpc/hex-codecs.js';

/**
 * Nonces and committed transactions' VM errors (interface.md §4.2, §4.11): the `eth_` methods and
 * their `ext_` namesakes share these definitions.
 */
export function nonceAndErrorMethods(chain: ChainReader, pool: TxPoolReader, prefix: 'eth' | 'ext') {
  /** The VM error of a committed transaction, or undefined when it is unknown. */
  async function vmErrorOf(txHash: `0x${string}`): Promise<string | undefined> {
    const location = await chain.locationOf(txHash);
    if (location === undefined) return undefined;
    return (await chain.receiptFieldsAt(location))?.vmError;
  }

  return [
    defineMethod({
      name: `${prefix}_getTransactionCount`,
      params: [address, blockRef.optional(LATEST_BLOCK)],
      handler: async ([who, block]) => {
        if (block.kind === 'tag' && block.tag === 'pending') return toQuantity(await pool.pendingNonce(who));
        const { nonce } = await chain.accountAt(who, await chain.resolveHeight(block));
        return toQuantity(nonce);
      },
    }),
    defineMethod({
      name: `${prefix}_getVMError`,
      params: [hash],
      handler: async ([txHash]) => {
        const vmError = await vmErrorOf(txHash);
        if (vmError === undefined) throw new InvalidInputError('receipt not found');
        return vmError;
      },
    }),
    defineMethod({
      name: `${prefix}_getTransactionErrorByHash`,
      params: [hash],
      handler: async ([txHash]) => (await vmErrorOf(txHash)) ?? '',
    }),
  ];
}

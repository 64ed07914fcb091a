import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { address, blockRef, defineMethod, hash, LATEST_BLOCK, toQuantity, type ChainReader } from '@evmnode/core';
import { PAGE_LIMIT, pageRequest } from './page.js';

/**
 * `ext_queryStorage(address, {limit, cursor}, block?)`: a contract's storage slots after a block,
 * a page at a time, in the order of their hashed keys (the storage trie's, as geth's
 * `debug_storageRangeAt`); `cursor` is the hashed key a page starts at.
 */
export function queryStorageMethod(chain: ChainReader) {
  return defineMethod({
    name: 'ext_queryStorage',
    params: [address, pageRequest(hash).optional({ limit: PAGE_LIMIT.default }), blockRef.optional(LATEST_BLOCK)],
    handler: async ([contract, page, block]) => {
      const height = await chain.resolveHeight(block);
      const start = page.cursor === undefined ? new Uint8Array(32) : hexToBytes(page.cursor);
      const { slots, next } = await chain.storageRangeAt(contract, height, start, page.limit);
      return {
        slots: slots.map((slot) => ({ hashedKey: bytesToHex(slot.hashedKey), value: bytesToHex(slot.value) })),
        nextCursor: next === undefined ? null : bytesToHex(next),
        blockNumber: toQuantity(height),
      };
    },
  });
}

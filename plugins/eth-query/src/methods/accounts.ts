import { bytesToHex } from '@ethereumjs/util';
import {
  address,
  blockRef,
  decodeStorageKey,
  defineMethod,
  LATEST_BLOCK,
  string,
  toQuantity,
  type ChainReader,
} from '@evmnode/core';

/** §4.3: balance, code and storage at any height, hash or EIP-1898 object; and forge's `eth_getAccountInfo` (D9). */
export function accountMethods(chain: ChainReader) {
  return [
    defineMethod({
      name: 'eth_getBalance',
      params: [address, blockRef.optional(LATEST_BLOCK)],
      handler: ([who, block]) => {
        // The most asked-for read: a balance already read at the head answers without a promise.
        const known = block.kind === 'tag' && block.tag !== 'earliest' ? chain.knownAccountAtHead(who) : undefined;
        if (known !== undefined) return toQuantity(known.balance);
        return chain
          .resolveHeight(block)
          .then((height) => chain.accountAt(who, height))
          .then((account) => toQuantity(account.balance));
      },
    }),
    defineMethod({
      name: 'eth_getCode',
      params: [address, blockRef.optional(LATEST_BLOCK)],
      handler: async ([who, block]) => bytesToHex(await chain.codeAt(who, await chain.resolveHeight(block))),
    }),
    defineMethod({
      name: 'eth_getStorageAt',
      // The key is a JSON string decoded once the block is resolved, in geth's order: a bad block
      // is reported before a bad key.
      params: [address, string, blockRef.optional(LATEST_BLOCK)],
      handler: async ([who, key, block]) => {
        const height = await chain.resolveHeight(block);
        return bytesToHex(await chain.storageAt(who, decodeStorageKey(key), height));
      },
    }),
    defineMethod({
      name: 'eth_getAccountInfo',
      params: [address, blockRef.optional(LATEST_BLOCK)],
      handler: async ([who, block]) => {
        const height = await chain.resolveHeight(block);
        const [account, code] = await Promise.all([chain.accountAt(who, height), chain.codeAt(who, height)]);
        return { balance: toQuantity(account.balance), nonce: toQuantity(account.nonce), code: bytesToHex(code) };
      },
    }),
  ];
}

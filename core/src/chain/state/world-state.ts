import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, CacheType, MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, hexToBytes, ValueEncoding } from '@ethereumjs/util';
import type { TrieNodeStore } from './trie-node-store.js';
import type { Genesis } from '../genesis.js';

/**
 * What a long-lived state manager keeps in memory: trie nodes (the upper levels every lookup
 * walks) and accounts, storage slots and code, each bounded (LRU) so that memory does not grow
 * with the number of accounts the chain has touched.
 */
const TRIE_NODE_CACHE = 20_000;
const CACHE_SIZES = { account: 20_000, storage: 20_000, code: 2_000 } as const;

function boundedCaches(): Caches {
  return new Caches({
    account: { type: CacheType.LRU, size: CACHE_SIZES.account },
    storage: { type: CacheType.LRU, size: CACHE_SIZES.storage },
    code: { type: CacheType.LRU, size: CACHE_SIZES.code },
  });
}

/**
 * A state manager over the node's trie store, at `root` (the empty state when omitted).
 * `withCaches` is for long-lived ones (the head's, the producer's).
 */
export function stateManagerAt(
  nodes: TrieNodeStore,
  common: Common,
  root?: Uint8Array,
  withCaches = false,
): MerkleStateManager {
  const trie = new MerklePatriciaTrie({
    db: nodes,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common,
    ...(withCaches ? { cacheSize: TRIE_NODE_CACHE } : {}),
    ...(root === undefined ? {} : { root }),
  });
  return new MerkleStateManager({ trie, common, ...(withCaches ? { caches: boundedCaches() } : {}) });
}

/** Writes the genesis accounts into `state` and returns the resulting state root. */
export async function applyGenesisState(state: MerkleStateManager, genesis: Genesis): Promise<Uint8Array> {
  for (const [address, account] of genesis.alloc) {
    const at = new Address(hexToBytes(address));
    await state.putAccount(at, new Account(account.nonce, account.balance));
    if (account.code !== undefined) await state.putCode(at, account.code);
    for (const [slot, value] of account.storage) {
      await state.putStorage(at, hexToBytes(slot), hexToBytes(value));
    }
  }
  await state.flush();
  return state.getStateRoot();
}

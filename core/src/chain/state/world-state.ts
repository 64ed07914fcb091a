import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, hexToBytes, ValueEncoding } from '@ethereumjs/util';
import type { TrieNodeStore } from './trie-node-store.js';
import type { Genesis } from '../genesis.js';

/** A state manager over the node's trie store, at `root` (the empty state when omitted). */
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
    ...(root === undefined ? {} : { root }),
  });
  return new MerkleStateManager({ trie, common, ...(withCaches ? { caches: new Caches() } : {}) });
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

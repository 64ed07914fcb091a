import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, CacheType, MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, hexToBytes, ValueEncoding } from '@ethereumjs/util';
import type { TrieNodeStore } from './trie-node-store.js';
import type { Genesis } from '../genesis.js';
import { addressPairOf, associate } from '../native/association.js';
import { Auth } from '../native/auth.js';
import { Bank, WEI_PER_BASE_UNIT, type Denoms } from '../native/bank.js';

/** How many trie nodes and accounts, storage slots and code entries a state manager keeps (LRU). */
export interface StateCacheSizes {
  readonly trieNodes: number;
  readonly entries: number;
}

/**
 * What the long-lived head and producer states keep in memory: trie nodes (the upper levels every
 * lookup walks) and accounts, slots and code, each bounded so that memory does not grow with the
 * number of accounts the chain has touched.
 */
export const HEAD_STATE_CACHES: StateCacheSizes = { trieNodes: 20_000, entries: 20_000 };

function boundedCaches(sizes: StateCacheSizes): Caches {
  return new Caches({
    account: { type: CacheType.LRU, size: sizes.entries },
    storage: { type: CacheType.LRU, size: sizes.entries },
    code: { type: CacheType.LRU, size: Math.ceil(sizes.entries / 10) },
  });
}

/**
 * ethereumjs' state manager, telling how many checkpoints are open: an execution that throws
 * leaves open those ethereumjs took for it, and whoever runs it must revert them.
 */
export class WorldState extends MerkleStateManager {
  get openCheckpoints(): number {
    return this._checkpointCount;
  }
}

/**
 * A state manager over the node's trie store, at `root` (the empty state when omitted). Caches
 * are for long-lived ones; a one-off historical read goes without.
 */
export function stateManagerAt(
  nodes: TrieNodeStore,
  common: Common,
  root?: Uint8Array,
  caches?: StateCacheSizes,
): WorldState {
  const trie = new MerklePatriciaTrie({
    db: nodes,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common,
    ...(caches === undefined ? {} : { cacheSize: caches.trieNodes }),
    ...(root === undefined ? {} : { root }),
  });
  return new WorldState({ trie, common, ...(caches === undefined ? {} : { caches: boundedCaches(caches) }) });
}

/**
 * Writes the genesis accounts into `state`, with their native side (other denominations, auth
 * accounts in alloc order, associations of accounts given with their key, the base supply), and
 * returns the resulting state root.
 */
export async function applyGenesisState(
  state: MerkleStateManager,
  genesis: Genesis,
  denoms: Denoms,
): Promise<Uint8Array> {
  const bank = new Bank(state, denoms);
  const auth = new Auth(state);
  let baseSupply = 0n;
  for (const [address, account] of genesis.alloc) {
    const at = new Address(hexToBytes(address));
    await state.putAccount(at, new Account(account.nonce, account.balance));
    baseSupply += account.balance / WEI_PER_BASE_UNIT;
    if (account.code !== undefined) await state.putCode(at, account.code);
    for (const [slot, value] of account.storage) {
      await state.putStorage(at, hexToBytes(slot), hexToBytes(value));
    }
    for (const [denom, amount] of account.coins ?? []) await bank.mint(at.bytes, { denom, amount });
    if (account.pubKey === undefined) await auth.ensure(at.bytes);
    else await associate(state, addressPairOf(account.pubKey), denoms);
  }
  await bank.setBaseSupply(baseSupply);
  await state.flush();
  return state.getStateRoot();
}

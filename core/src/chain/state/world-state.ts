import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, CacheType, MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, hexToBytes, ValueEncoding } from '@ethereumjs/util';
import type { StateAccess } from '../../api/replayer.js';
import { stateAccessOf, type StateRecordKind } from './state-access.js';
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
 * ethereumjs' state manager, telling how many checkpoints are open (an execution that throws
 * leaves open those ethereumjs took for it, and whoever runs it must revert them) and, while an
 * {@link accessObserver} is set, every account, code and storage record read or written through
 * it (`debug_traceStateAccess`). Only the outermost operation is reported: the account read a
 * storage read makes inside ethereumjs is not a state access of the caller's.
 */
export class WorldState extends MerkleStateManager {
  accessObserver: ((access: StateAccess) => void) | undefined;
  #nested = 0;

  get openCheckpoints(): number {
    return this._checkpointCount;
  }

  override getAccount(address: Address): Promise<Account | undefined> {
    if (!this.#observing) return super.getAccount(address);
    return this.#reported('read', 'account', address, undefined, () => super.getAccount(address), accountBytes);
  }

  override putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (!this.#observing) return super.putAccount(address, account);
    const put = () => super.putAccount(address, account);
    return this.#reported('write', 'account', address, undefined, put, () => accountBytes(account));
  }

  override deleteAccount(address: Address): Promise<void> {
    if (!this.#observing) return super.deleteAccount(address);
    return this.#reported('write', 'account', address, undefined, () => super.deleteAccount(address), noBytes);
  }

  override getCode(address: Address): Promise<Uint8Array> {
    if (!this.#observing) return super.getCode(address);
    return this.#reported(
      'read',
      'code',
      address,
      undefined,
      () => super.getCode(address),
      (code) => code,
    );
  }

  override putCode(address: Address, code: Uint8Array): Promise<void> {
    if (!this.#observing) return super.putCode(address, code);
    return this.#reported(
      'write',
      'code',
      address,
      undefined,
      () => super.putCode(address, code),
      () => code,
    );
  }

  override getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    if (!this.#observing) return super.getStorage(address, slot);
    return this.#reported(
      'read',
      'storage',
      address,
      slot,
      () => super.getStorage(address, slot),
      (value) => value,
    );
  }

  override putStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    if (!this.#observing) return super.putStorage(address, slot, value);
    const put = () => super.putStorage(address, slot, value);
    return this.#reported('write', 'storage', address, slot, put, () => value);
  }

  /** Every slot of `address` cleared: reported as a write of its storage key without a slot. */
  override clearStorage(address: Address): Promise<void> {
    if (!this.#observing) return super.clearStorage(address);
    return this.#reported('write', 'storage', address, undefined, () => super.clearStorage(address), noBytes);
  }

  /** Whether this operation is reported: an observer is set and no reported operation is under way. */
  get #observing(): boolean {
    return this.accessObserver !== undefined && this.#nested === 0;
  }

  /** Runs `run` and reports it; only the state's own methods call this, after checking {@link #observing}. */
  async #reported<T>(
    op: StateAccess['op'],
    kind: StateRecordKind,
    address: Address,
    slot: Uint8Array | undefined,
    run: () => Promise<T>,
    valueOf: (result: T) => Uint8Array,
  ): Promise<T> {
    const observer = this.accessObserver!;
    this.#nested++;
    try {
      const result = await run();
      observer(stateAccessOf(op, kind, address, slot, valueOf(result)));
      return result;
    } finally {
      this.#nested--;
    }
  }
}

const noBytes = (): Uint8Array => new Uint8Array();

const accountBytes = (account: Account | undefined): Uint8Array => account?.serialize() ?? new Uint8Array();

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

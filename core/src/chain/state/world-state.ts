import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, CacheType, CODEHASH_PREFIX, MerkleStateManager } from '@ethereumjs/statemanager';
import { RLP } from '@ethereumjs/rlp';
import {
  Account,
  Address,
  concatBytes,
  createAccountFromRLP,
  hexToBytes,
  unpadBytes,
  unprefixedHexToBytes,
  ValueEncoding,
  type DB,
} from '@ethereumjs/util';
import { keccak256 } from '../native-crypto.js';
import type { StateAccess } from '../../api/replayer.js';
import { stateAccessOf, type StateRecordKind } from './state-access.js';
import type { TrieReads } from './trie-reads.js';
import { updateTrie, type TrieUpdate } from './trie-batch-update.js';
import type { Turns } from '../../rpc/event-loop-turns.js';
import { trieValue } from './trie-lookup.js';
import { isDeletedEntry, putWrittenAccount, WrittenAccount } from './account-entries.js';
import type { Genesis } from '../genesis.js';
import { addressPairOf, associate } from '../native/association.js';
import { Auth } from '../native/auth.js';
import { Bank, WEI_PER_BASE_UNIT, type Denoms } from '../native/bank.js';

/**
 * How many trie nodes and accounts, storage slots and code entries a state manager keeps (LRU).
 * `all` keeps every entry: a state that is never flushed holds its writes only there, and an
 * evicted one would be lost.
 */
export interface StateCacheSizes {
  readonly trieNodes: number;
  readonly entries: number | 'all';
}

/**
 * What the producer's long-lived state keeps in memory: trie nodes (the upper levels every lookup
 * walks) and accounts, slots and code, each bounded so that memory does not grow with the number
 * of accounts the chain has touched.
 */
export const PRODUCER_STATE_CACHES: StateCacheSizes = { trieNodes: 20_000, entries: 20_000 };

/**
 * What the state that serves reads at the head keeps, which is replaced at every block. lru-cache
 * allocates a cache's full size up front, which for 20,000 entries takes milliseconds (over 5 ms
 * for a head state with the sizes above): so small caches, and no trie node cache of its own,
 * since the node store already keeps nodes across blocks.
 */
export const HEAD_READ_CACHES: StateCacheSizes = { trieNodes: 0, entries: 2_000 };

function cachesOf(sizes: StateCacheSizes): Caches {
  if (sizes.entries === 'all')
    return new Caches({
      account: { type: CacheType.ORDERED_MAP },
      storage: { type: CacheType.ORDERED_MAP },
      code: { type: CacheType.ORDERED_MAP },
    });
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
 * storage read makes inside ethereumjs is not a state access of the caller's. With
 * {@link trieReads} set, what its caches miss is looked up there before the trie is walked.
 */
export class WorldState extends MerkleStateManager {
  accessObserver: ((access: StateAccess) => void) | undefined;
  trieReads: TrieReads | undefined;
  /** While set, a flush gives other work turns: a 60M-gas block's flush runs for tens of milliseconds. */
  turns: Turns | undefined;
  #nested = 0;
  /**
   * The account each entry read from the trie holds, decoded once: ethereumjs keeps accounts as
   * RLP and decodes one at every read. Keyed by the entry itself, which a write replaces and a
   * revert puts back. Written entries hold their account themselves.
   */
  readonly #decoded = new WeakMap<object, Account>();
  /** While set, the reads that missed the caches, to be read again by {@link rereadMisses}. */
  #misses: Miss[] | undefined;

  get openCheckpoints(): number {
    return this._checkpointCount;
  }

  override getAccount(address: Address): Promise<Account | undefined> {
    if (!this.#observing) return this.#readAccount(address);
    return this.#reported('read', 'account', address, undefined, () => this.#readAccount(address), accountBytes);
  }

  override putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (!this.#observing) return this.#writeAccount(address, account);
    const put = () => this.#writeAccount(address, account);
    return this.#reported('write', 'account', address, undefined, put, () => accountBytes(account));
  }

  /** ethereumjs' write; with caches, the entry holds a copy of the account, encoded only at flush. */
  async #writeAccount(address: Address, account: Account | undefined): Promise<void> {
    const cache = this._caches?.account;
    if (cache === undefined || account === undefined) return super.putAccount(address, account);
    putWrittenAccount(cache, address, copyOf(account));
  }

  override deleteAccount(address: Address): Promise<void> {
    if (!this.#observing) return super.deleteAccount(address);
    return this.#reported('write', 'account', address, undefined, () => super.deleteAccount(address), noBytes);
  }

  override getCode(address: Address): Promise<Uint8Array> {
    if (!this.#observing) return this.#readCode(address);
    return this.#reported(
      'read',
      'code',
      address,
      undefined,
      () => this.#readCode(address),
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
    if (!this.#observing) return this.#readStorage(address, slot);
    return this.#reported(
      'read',
      'storage',
      address,
      slot,
      () => this.#readStorage(address, slot),
      (value) => value,
    );
  }

  override putStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    if (!this.#observing) return this.#writeStorage(address, slot, value);
    const put = () => this.#writeStorage(address, slot, value);
    return this.#reported('write', 'storage', address, slot, put, () => value);
  }

  /**
   * ethereumjs' write with caches, without its walk of the storage trie: its cache `put` returns
   * nothing, so its `?? writeContractStorage` also writes every slot into the trie at once, which
   * `flush` then does again. The trie is written once, at flush.
   */
  async #writeStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    const storage = this._caches?.storage;
    if (storage === undefined || slot.length !== 32 || value.length > 32) return super.putStorage(address, slot, value);
    if ((await this.getAccount(address)) === undefined) return super.putStorage(address, slot, value);
    storage.put(address, slot, RLP.encode(unpadBytes(value)));
  }

  /**
   * ethereumjs' flush of the caches into the tries (code, then storage, then accounts), each trie
   * written in one batch ({@link updateTrie}) instead of key by key: a block's upper trie nodes
   * are hashed and stored once, not once per account it changed.
   */
  override async flush(): Promise<void> {
    const caches = this._caches;
    if (caches === undefined) return super.flush();
    for (const [addressHex, { code }] of caches.code?.flush() ?? []) {
      if (code === undefined) continue;
      const address = new Address(unprefixedHexToBytes(addressHex));
      const codeHash = keccak256(code);
      await this._getCodeDB().put(this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, code);
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account());
      await this.modifyAccountFields(address, { codeHash });
    }
    const slotsByAccount = new Map<string, TrieUpdate[]>();
    for (const [addressHex, slotHex, value] of caches.storage?.flush() ?? []) {
      const decoded = RLP.decode(value ?? new Uint8Array()) as Uint8Array;
      const update = {
        key: keccak256(unprefixedHexToBytes(slotHex)),
        value: decoded.length > 0 ? RLP.encode(decoded) : undefined,
      };
      const slots = slotsByAccount.get(addressHex);
      if (slots === undefined) slotsByAccount.set(addressHex, [update]);
      else slots.push(update);
      const turn = this.turns?.pause();
      if (turn !== undefined) await turn;
    }
    for (const [addressHex, slots] of slotsByAccount) {
      const address = new Address(unprefixedHexToBytes(addressHex));
      const account = await this.getAccount(address);
      if (account === undefined) continue;
      account.storageRoot = await updateTrie(this._getStorageTrie(address, account), slots, keccak256, this.turns);
      await this.putAccount(address, account);
    }
    const accounts: TrieUpdate[] = [];
    for (const [addressHex, { accountRLP }] of caches.account?.flush() ?? []) {
      accounts.push({ key: keccak256(unprefixedHexToBytes(addressHex)), value: accountRLP });
      const turn = this.turns?.pause();
      if (turn !== undefined) await turn;
    }
    await updateTrie(this._trie, accounts, keccak256, this.turns);
  }

  /** Every slot of `address` cleared: reported as a write of its storage key without a slot. */
  override clearStorage(address: Address): Promise<void> {
    if (!this.#observing) return super.clearStorage(address);
    return this.#reported('write', 'storage', address, undefined, () => super.clearStorage(address), noBytes);
  }

  // The three reads below do what ethereumjs' do, with the trie walk replaced by a lookup in
  // trieReads when it holds the value; what they find goes into the caches as ethereumjs' reads
  // put it there, so that checkpoints and reverts see the same caches either way.

  async #readAccount(address: Address): Promise<Account | undefined> {
    const cache = this._caches?.account;
    const entry = cache?.get(address);
    if (entry !== undefined) return isDeletedEntry(entry) ? undefined : this.#accountIn(entry);
    this.#misses?.push({ address });
    const reads = this.trieReads;
    if (cache === undefined || reads === undefined) return this.#trieAccount(address);
    const root = this._trie.root();
    const rlp = reads.account(root, address.bytes);
    if (rlp === undefined) {
      const account = await this.#trieAccount(address);
      reads.rememberAccount(root, address.bytes, account?.serialize());
      return account;
    }
    const account = rlp === null ? undefined : createAccountFromRLP(rlp);
    cache.put(address, account);
    return account;
  }

  /** ethereumjs' read of an account from the trie, its path found by {@link trieValue}. */
  async #trieAccount(address: Address): Promise<Account | undefined> {
    const rlp = await trieValue(this._trie, keccak256(address.bytes));
    const account = rlp === null ? undefined : createAccountFromRLP(rlp);
    this._caches?.account?.put(address, account);
    return account;
  }

  /** ethereumjs' read of a slot from its account's storage trie, its path found by {@link trieValue}. */
  async #trieSlot(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    // What ethereumjs refuses, and storage tries it keys apart, it reads itself.
    if (slot.length !== 32 || this._prefixStorageTrieKeys) return super.getStorage(address, slot);
    const account = await this.getAccount(address);
    if (account === undefined) return new Uint8Array();
    const value = await trieValue(this._getStorageTrie(address, account), keccak256(slot));
    this._caches?.storage?.put(address, slot, value ?? RLP.encode(new Uint8Array()));
    return RLP.decode(value ?? new Uint8Array()) as Uint8Array;
  }

  /** A copy of the account a cache entry holds (callers change the accounts they read, then write them). */
  #accountIn(entry: { readonly accountRLP: Uint8Array | undefined }): Account {
    if (entry instanceof WrittenAccount) return copyOf(entry.account);
    let account = this.#decoded.get(entry);
    if (account === undefined) {
      account = createAccountFromRLP(entry.accountRLP!);
      this.#decoded.set(entry, account);
    }
    return copyOf(account);
  }

  async #readStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    const reads = this.trieReads;
    // What ethereumjs' read does with a cached slot, without looking it up a second time.
    const cached = this._caches?.storage?.get(address, slot);
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array;
    this.#misses?.push({ address, slot });
    if (reads === undefined) return this.#trieSlot(address, slot);
    const account = await this.#readAccount(address);
    if (account === undefined) return new Uint8Array();
    const encoded = reads.slot(account.storageRoot, slot);
    if (encoded === undefined) {
      const value = await this.#trieSlot(address, slot);
      reads.rememberSlot(account.storageRoot, slot, RLP.encode(value));
      return value;
    }
    this._caches?.storage?.put(address, slot, encoded);
    return RLP.decode(encoded) as Uint8Array;
  }

  async #readCode(address: Address): Promise<Uint8Array> {
    const reads = this.trieReads;
    if (this._caches?.code?.get(address) !== undefined) return super.getCode(address);
    this.#misses?.push({ address, code: true });
    if (reads === undefined) return super.getCode(address);
    const account = await this.#readAccount(address);
    if (account === undefined || !account.isContract()) return new Uint8Array();
    const known = reads.code(account.codeHash);
    if (known !== undefined) {
      this._caches?.code?.put(address, known);
      return known;
    }
    const code = await super.getCode(address);
    reads.rememberCode(account.codeHash, code);
    return code;
  }

  /**
   * Starts listing the accounts, slots and code read from the trie rather than the caches. A
   * replay that undoes a transaction (a checkpoint reverted) loses what the transaction read
   * into the caches; {@link rereadMisses} reads it again below the checkpoint, where it stays.
   */
  recordMisses(): void {
    this.#misses = [];
  }

  /** Reads again what {@link recordMisses} listed, at the current checkpoint, and stops listing. */
  async rereadMisses(): Promise<void> {
    const misses = this.#misses ?? [];
    this.#misses = undefined;
    for (const miss of misses) {
      if (miss.slot !== undefined) await this.getStorage(miss.address, miss.slot);
      else if (miss.code === true) await this.getCode(miss.address);
      else await this.getAccount(miss.address);
    }
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

/** A read that missed the caches: an account, one of its slots, or its code. */
interface Miss {
  readonly address: Address;
  readonly slot?: Uint8Array;
  readonly code?: true;
}

/** The account as ethereumjs decodes it from its RLP, sharing the (never modified in place) root and hash. */
const copyOf = (account: Account): Account =>
  new Account(account.nonce, account.balance, account.storageRoot, account.codeHash);

const noBytes = (): Uint8Array => new Uint8Array();

const accountBytes = (account: Account | undefined): Uint8Array => account?.serialize() ?? new Uint8Array();

/**
 * A state manager over the node's trie store (`TrieNodeStore`, or its replay view), at `root` (the
 * empty state when omitted). Caches are for long-lived ones; a one-off historical read goes without.
 */
export function stateManagerAt(
  nodes: DB<string | Uint8Array, string | Uint8Array>,
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
  return new WorldState({ trie, common, ...(caches === undefined ? {} : { caches: cachesOf(caches) }) });
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

import type { AccountCache } from '@ethereumjs/statemanager';
import { bytesToUnprefixedHex, type Account, type Address } from '@ethereumjs/util';

/**
 * An account cache entry holding the account itself, encoded to RLP only when asked (at flush).
 * ethereumjs' cache encodes an account at every write, four or five times per transfer, though
 * only a block's last write of each account reaches the trie; a replay, never flushed, needs none.
 * The entry is never changed: a write puts a new one, and a revert puts the old one back.
 */
export class WrittenAccount {
  #rlp: Uint8Array | undefined;

  constructor(readonly account: Account) {}

  get accountRLP(): Uint8Array {
    return (this.#rlp ??= this.account.serialize());
  }
}

/** What ethereumjs' `AccountCache.put` does with an existing account, with a {@link WrittenAccount} as the entry. */
export function putWrittenAccount(cache: AccountCache, address: Address, account: Account): void {
  const key = bytesToUnprefixedHex(address.bytes);
  const entry = new WrittenAccount(account);
  // Remembers the entry it replaces, for a revert of the current checkpoint.
  cache._saveCachePreState(key);
  if (cache._lruCache !== undefined) cache._lruCache.set(key, entry);
  else cache._orderedMapCache!.setElement(key, entry);
  cache._stats.writes += 1;
}

/** Whether a cache entry says the account does not exist (without encoding a written one). */
export function isDeletedEntry(entry: { readonly accountRLP: Uint8Array | undefined }): boolean {
  return !(entry instanceof WrittenAccount) && entry.accountRLP === undefined;
}

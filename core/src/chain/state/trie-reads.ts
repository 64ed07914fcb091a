import { bytesToUnprefixedHex } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';

/** What a miss is remembered as: no account at the address. */
const ABSENT = new Uint8Array();

/**
 * Values read from the state trie, by content: a trie with a given root holds one value per key
 * forever, and code is stored under its hash, so a remembered read never goes stale whatever
 * state asks. States that are opened again and again at the same roots (block replays, each
 * trace undoing its transaction) read each account, slot and contract once instead of walking
 * the trie for every trace. Bounded in bytes.
 */
export class TrieReads {
  readonly #values: LRUCache<string, Uint8Array>;

  constructor(maxBytes: number) {
    this.#values = new LRUCache({ maxSize: maxBytes, sizeCalculation: (value, key) => key.length + value.length + 64 });
  }

  /** The RLP of the account at `address` in the state with root `stateRoot`; null when there is none; undefined when not read yet. */
  account(stateRoot: Uint8Array, address: Uint8Array): Uint8Array | null | undefined {
    const value = this.#values.get(accountKey(stateRoot, address));
    return value === ABSENT ? null : value;
  }

  rememberAccount(stateRoot: Uint8Array, address: Uint8Array, rlp: Uint8Array | undefined): void {
    this.#values.set(accountKey(stateRoot, address), rlp ?? ABSENT);
  }

  /** The RLP-encoded value of `slot` in the storage trie with root `storageRoot`, when read before. */
  slot(storageRoot: Uint8Array, slot: Uint8Array): Uint8Array | undefined {
    return this.#values.get(slotKey(storageRoot, slot));
  }

  rememberSlot(storageRoot: Uint8Array, slot: Uint8Array, encoded: Uint8Array): void {
    this.#values.set(slotKey(storageRoot, slot), encoded);
  }

  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.#values.get(`c${bytesToUnprefixedHex(codeHash)}`);
  }

  rememberCode(codeHash: Uint8Array, code: Uint8Array): void {
    this.#values.set(`c${bytesToUnprefixedHex(codeHash)}`, code);
  }
}

const accountKey = (root: Uint8Array, address: Uint8Array): string =>
  `a${bytesToUnprefixedHex(root)}${bytesToUnprefixedHex(address)}`;
const slotKey = (root: Uint8Array, slot: Uint8Array): string =>
  `s${bytesToUnprefixedHex(root)}${bytesToUnprefixedHex(slot)}`;

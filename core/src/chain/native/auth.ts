import type { StateManagerInterface } from '@ethereumjs/common';
import { bigIntToBytes, concatBytes, setLengthLeft } from '@ethereumjs/util';
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeNativeAddress } from './addresses.js';
import type { NativeAccount } from './native-types.js';
import { recordSlot, SystemAccount } from './system-account.js';

/** The auth module's account: its records live there, at the Cosmos SDK's module address for `auth`. */
export const AUTH_ADDRESS = sha256(new TextEncoder().encode('auth')).subarray(0, 20);

/** Record kinds of the auth account's storage. */
const Records = { account: 1, keyHead: 2, keyTail: 3, nextNumber: 4 } as const;

const MAX_UINT64 = 2n ** 64n - 1n;

/**
 * The auth module: native accounts by native address bytes, each with its account number (given
 * in creation order, from 0) and sequence (its count of signed native transactions), and its
 * public key once one of its transactions showed it. An account is created at genesis, when it
 * first receives native funds, or when it is associated.
 */
export class Auth {
  readonly #records: SystemAccount;

  constructor(state: StateManagerInterface) {
    this.#records = new SystemAccount(state, AUTH_ADDRESS);
  }

  async account(native: Uint8Array): Promise<NativeAccount | undefined> {
    // The word is (account number + 1) << 64 | sequence: zero means no account.
    const word = await this.#records.readNumber(recordSlot(Records.account, native));
    if (word === 0n) return undefined;
    const head = await this.#records.read(recordSlot(Records.keyHead, native));
    const tail = await this.#records.read(recordSlot(Records.keyTail, native));
    return {
      address: encodeNativeAddress(native),
      accountNumber: (word >> 64n) - 1n,
      sequence: word & MAX_UINT64,
      pubKey: head.length === 0 ? undefined : concatBytes(setLengthLeft(head, 32), setLengthLeft(tail, 1)),
    };
  }

  /** The account of `native`, created with the next account number if it has none. */
  async ensure(native: Uint8Array): Promise<NativeAccount> {
    const existing = await this.account(native);
    if (existing !== undefined) return existing;
    const numberSlot = recordSlot(Records.nextNumber);
    const accountNumber = await this.#records.readNumber(numberSlot);
    await this.#records.writeNumber(numberSlot, accountNumber + 1n);
    await this.#writeAccount(native, accountNumber, 0n);
    return { address: encodeNativeAddress(native), accountNumber, sequence: 0n, pubKey: undefined };
  }

  /** Counts one more signed transaction, and keeps the compressed key that signed it. */
  async signed(account: NativeAccount, native: Uint8Array, pubKey: Uint8Array): Promise<void> {
    await this.#writeAccount(native, account.accountNumber, account.sequence + 1n);
    if (account.pubKey === undefined) {
      await this.#records.write(recordSlot(Records.keyHead, native), pubKey.subarray(0, 32));
      await this.#records.write(recordSlot(Records.keyTail, native), pubKey.subarray(32));
    }
  }

  async #writeAccount(native: Uint8Array, accountNumber: bigint, sequence: bigint): Promise<void> {
    await this.#records.write(
      recordSlot(Records.account, native),
      bigIntToBytes(((accountNumber + 1n) << 64n) | sequence),
    );
  }
}

import type { StateManagerInterface } from '@ethereumjs/common';
import { bytesToHex, equalsBytes, hexToBytes, KECCAK256_NULL, setLengthLeft, type Address } from '@ethereumjs/util';

/** A 32-byte word as geth prints a `common.Hash`: 0x and 64 lower-case hex digits. */
export type Word = `0x${string}`;

/** An account as the prestate tracer records it: geth's `account`, before it is printed. */
export interface AccountState {
  readonly balance: bigint;
  readonly nonce: bigint;
  readonly code: Uint8Array;
  /** Undefined for an account without code, as geth leaves the empty code's hash out. */
  readonly codeHash: Word | undefined;
  /** The slots read or written, by slot, with their values: only those asked for. */
  readonly storage: Map<Word, Word>;
}

/** The account `address` holds in `state` now; a missing account reads as empty. */
export async function readAccount(state: StateManagerInterface, address: Address): Promise<AccountState> {
  const account = await state.getAccount(address);
  const code = account === undefined ? new Uint8Array() : await state.getCode(address);
  const codeHash =
    account === undefined || equalsBytes(account.codeHash, KECCAK256_NULL) ? undefined : bytesToHex(account.codeHash);
  return { balance: account?.balance ?? 0n, nonce: account?.nonce ?? 0n, code, codeHash, storage: new Map() };
}

/** The value of `slot` in `address`'s storage in `state` now. */
export async function readSlot(state: StateManagerInterface, address: Address, slot: Word): Promise<Word> {
  const value = await state.getStorage(address, hexToBytes(slot));
  return bytesToHex(setLengthLeft(value, 32));
}

/** geth's `account.exists()` on a fresh lookup: a nonce, code or a balance. */
export function isEmptyAccount(account: AccountState): boolean {
  return account.nonce === 0n && account.code.length === 0 && account.balance === 0n;
}

/** A word from a stack value. */
export function wordOf(value: bigint): Word {
  return `0x${value.toString(16).padStart(64, '0')}`;
}

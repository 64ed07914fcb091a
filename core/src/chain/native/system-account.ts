import type { StateManagerInterface } from '@ethereumjs/common';
import { Account, Address, bigIntToUnpaddedBytes, bytesToBigInt, concatBytes } from '@ethereumjs/util';
import { keccak256 } from '../native-crypto.js';

/** The storage slot of a record: keccak256 of a one-byte record kind and the record's key parts. */
export function recordSlot(kind: number, ...key: readonly Uint8Array[]): Uint8Array {
  return keccak256(concatBytes(Uint8Array.of(kind), ...key));
}

/**
 * An account whose storage holds a native module's records. Being EVM state, the records commit
 * atomically with the block that wrote them, exist at every height the state does, and roll back
 * with a reverted call or transaction like any other write.
 */
export class SystemAccount {
  readonly address: Address;

  constructor(
    private readonly state: StateManagerInterface,
    address: Uint8Array,
  ) {
    this.address = new Address(address);
  }

  async read(slot: Uint8Array): Promise<Uint8Array> {
    return this.state.getStorage(this.address, slot);
  }

  async readNumber(slot: Uint8Array): Promise<bigint> {
    const value = await this.read(slot);
    return value.length === 0 ? 0n : bytesToBigInt(value);
  }

  async write(slot: Uint8Array, value: Uint8Array): Promise<void> {
    // EIP-161 deletes an empty account (nonce 0, no balance, no code) that a transaction touches,
    // storage included: a nonce keeps it.
    const account = (await this.state.getAccount(this.address)) ?? new Account();
    if (account.nonce === 0n) {
      account.nonce = 1n;
      await this.state.putAccount(this.address, account);
    }
    await this.state.putStorage(this.address, slot, value);
  }

  async writeNumber(slot: Uint8Array, value: bigint): Promise<void> {
    await this.write(slot, bigIntToUnpaddedBytes(value));
  }
}

import type { StateManagerInterface } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, concatBytes, hexToBytes, setLengthLeft, type PrefixedHexString } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { evmAddressOfKey, nativeAddressOfKey } from './addresses.js';

/** The `addr` precompile's address (decisions.md D5). Its account holds the association records. */
export const ADDR_PRECOMPILE_ADDRESS: PrefixedHexString = '0x0000000000000000000000000000000000001004';

/**
 * The records are storage slots of the precompile's account, in the EVM state: they commit
 * atomically with the block that made them, exist at every height the state does, and roll back
 * with a reverted call like any other write.
 */
const RECORDS_ACCOUNT = new Address(hexToBytes(ADDR_PRECOMPILE_ADDRESS));

/** Slot key prefixes, one per direction; a slot holds the other address, left-padded. */
const EVM_TO_NATIVE = 1;
const NATIVE_TO_EVM = 2;

/** An EVM address and the native address of the same key, both as 20 bytes. */
export interface AddressPair {
  readonly evm: Uint8Array;
  readonly native: Uint8Array;
}

/** Both addresses of a secp256k1 public key (33, 64 or 65 bytes). */
export function addressPairOf(publicKey: Uint8Array): AddressPair {
  return { evm: evmAddressOfKey(publicKey), native: nativeAddressOfKey(publicKey) };
}

function slotOf(direction: number, address: Uint8Array): Uint8Array {
  return keccak_256(concatBytes(Uint8Array.of(direction), address));
}

async function readRecord(state: StateManagerInterface, slot: Uint8Array): Promise<Uint8Array | undefined> {
  const value = await state.getStorage(RECORDS_ACCOUNT, slot);
  return value.length === 0 ? undefined : setLengthLeft(value, 20);
}

/** The native address bytes associated with `evmAddress`, or undefined when it is not associated. */
export function associatedNativeAddress(
  state: StateManagerInterface,
  evmAddress: Uint8Array,
): Promise<Uint8Array | undefined> {
  return readRecord(state, slotOf(EVM_TO_NATIVE, evmAddress));
}

/** The EVM address associated with native address bytes, or undefined when it is not associated. */
export function associatedEvmAddress(
  state: StateManagerInterface,
  nativeAddress: Uint8Array,
): Promise<Uint8Array | undefined> {
  return readRecord(state, slotOf(NATIVE_TO_EVM, nativeAddress));
}

/** Records both directions of an association. */
export async function recordAssociation(state: StateManagerInterface, pair: AddressPair): Promise<void> {
  // EIP-161 deletes an empty account (nonce 0, no balance, no code) that a transaction touches,
  // storage included, and every call to the precompile touches it: a nonce keeps it.
  const account = (await state.getAccount(RECORDS_ACCOUNT)) ?? new Account();
  if (account.nonce === 0n) {
    account.nonce = 1n;
    await state.putAccount(RECORDS_ACCOUNT, account);
  }
  await state.putStorage(RECORDS_ACCOUNT, slotOf(EVM_TO_NATIVE, pair.evm), pair.native);
  await state.putStorage(RECORDS_ACCOUNT, slotOf(NATIVE_TO_EVM, pair.native), pair.evm);
}

/** Associates the sender of a signed transaction with its native address, unless it already is. */
export async function associateSender(state: StateManagerInterface, tx: TypedTransaction): Promise<void> {
  if ((await associatedNativeAddress(state, tx.getSenderAddress().bytes)) !== undefined) return;
  await recordAssociation(state, addressPairOf(tx.getSenderPublicKey()));
}

/**
 * Associates every transaction's sender as `vm` starts running it (decisions.md D5: on the first
 * signed EVM transaction). `beforeTx` fires inside the transaction's state checkpoint and before
 * its checks and execution, as the reference chain's ante handler does: the transaction already
 * sees its sender associated, the record stays when its execution reverts, and goes when the
 * transaction fails its checks and is not included.
 */
export function associateSendersBeforeExecution(vm: VM): void {
  // Resolving with the association's promise makes the VM await it, and fail the transaction if it rejects.
  vm.events.on('beforeTx', (tx, resolve) => resolve?.(associateSender(vm.stateManager, tx)));
}

import type { StateManagerInterface } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import { equalsBytes, hexToBytes, setLengthLeft, type PrefixedHexString } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { castEvmAddressOf, evmAddressOfKey, nativeAddressOfKey } from './addresses.js';
import { Auth } from './auth.js';
import { Bank, type Denoms } from './bank.js';
import { recordSlot, SystemAccount } from './system-account.js';

/** The `addr` precompile's address (decisions.md D5). Its account holds the association records. */
export const ADDR_PRECOMPILE_ADDRESS: PrefixedHexString = '0x0000000000000000000000000000000000001004';

/** Record kinds, one per direction; a record holds the other address. */
const Records = { evmToNative: 1, nativeToEvm: 2 } as const;

/** An EVM address and the native address of the same key, both as 20 bytes. */
export interface AddressPair {
  readonly evm: Uint8Array;
  readonly native: Uint8Array;
}

/** Both addresses of a secp256k1 public key (33, 64 or 65 bytes). */
export function addressPairOf(publicKey: Uint8Array): AddressPair {
  return { evm: evmAddressOfKey(publicKey), native: nativeAddressOfKey(publicKey) };
}

const ADDR_PRECOMPILE_BYTES = hexToBytes(ADDR_PRECOMPILE_ADDRESS);

function records(state: StateManagerInterface): SystemAccount {
  return new SystemAccount(state, ADDR_PRECOMPILE_BYTES);
}

async function readRecord(state: StateManagerInterface, slot: Uint8Array): Promise<Uint8Array | undefined> {
  const value = await records(state).read(slot);
  return value.length === 0 ? undefined : setLengthLeft(value, 20);
}

/** The native address bytes associated with `evmAddress`, or undefined when it is not associated. */
export function associatedNativeAddress(
  state: StateManagerInterface,
  evmAddress: Uint8Array,
): Promise<Uint8Array | undefined> {
  return readRecord(state, recordSlot(Records.evmToNative, evmAddress));
}

/** The EVM address associated with native address bytes, or undefined when it is not associated. */
export function associatedEvmAddress(
  state: StateManagerInterface,
  nativeAddress: Uint8Array,
): Promise<Uint8Array | undefined> {
  return readRecord(state, recordSlot(Records.nativeToEvm, nativeAddress));
}

/**
 * The EVM account that holds a native address's funds: its associated EVM address, or unassociated
 * its cast address (decisions.md D5).
 */
export async function bankAccountOf(state: StateManagerInterface, nativeAddress: Uint8Array): Promise<Uint8Array> {
  return (await associatedEvmAddress(state, nativeAddress)) ?? castEvmAddressOf(nativeAddress);
}

/**
 * Associates a key's two addresses: records both directions, moves what the native address's
 * cast account holds (wei remainder included) to the EVM address, and gives the native address
 * an auth account if it has none (decisions.md D5).
 */
export async function associate(state: StateManagerInterface, pair: AddressPair, denoms: Denoms): Promise<void> {
  const associations = records(state);
  await associations.write(recordSlot(Records.evmToNative, pair.evm), pair.native);
  await associations.write(recordSlot(Records.nativeToEvm, pair.native), pair.evm);
  const cast = castEvmAddressOf(pair.native);
  if (!equalsBytes(cast, pair.evm)) await new Bank(state, denoms).sendAll(cast, pair.evm);
  await new Auth(state).ensure(pair.native);
}

/** Associates the sender of a signed transaction with its native address, unless it already is. */
export async function associateSender(
  state: StateManagerInterface,
  tx: TypedTransaction,
  denoms: Denoms,
): Promise<void> {
  if ((await associatedNativeAddress(state, tx.getSenderAddress().bytes)) !== undefined) return;
  await associate(state, addressPairOf(tx.getSenderPublicKey()), denoms);
}

/**
 * Associates every transaction's sender as `vm` starts running it (decisions.md D5: on the first
 * signed EVM transaction). `beforeTx` fires inside the transaction's state checkpoint and before
 * its checks and execution, as the reference chain's ante handler does: the transaction already
 * sees its sender associated, the record stays when its execution reverts, and goes when the
 * transaction fails its checks and is not included.
 */
export function associateSendersBeforeExecution(vm: VM, denoms: Denoms): void {
  // Resolving with the association's promise makes the VM await it, and fail the transaction if it rejects.
  vm.events.on('beforeTx', (tx, resolve) => resolve?.(associateSender(vm.stateManager, tx, denoms)));
}

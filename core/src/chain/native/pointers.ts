import type { StateManagerInterface } from '@ethereumjs/common';
import { Account, Address, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from '../native-crypto.js';
import { Bank, type Denoms } from './bank.js';
import { NativeError, SdkError } from './native-error.js';
import { POINTER_RUNTIME_CODE } from './pointer-code.js';
import { putSolidityString } from './solidity-storage.js';

/** The pointer contract's storage slot of its denomination (NativeDenomPointer.sol's layout). */
const DENOM_SLOT = 0n;

/** The x/bank error of a denomination without metadata (the Cosmos SDK's `ErrDenomMetadataNotFound`). */
const DENOM_METADATA_NOT_FOUND = { codespace: 'bank', code: 6, description: 'client denom metadata not found' };

/** The address of a denomination's ERC20 pointer: the last 20 bytes of keccak256("evmnode/erc20-pointer/" + denom). */
export function pointerAddressOf(denom: string): Uint8Array {
  return keccak256(new TextEncoder().encode(`evmnode/erc20-pointer/${denom}`)).subarray(12);
}

/**
 * Creates the ERC20 pointer of `denom` at its deterministic address: the pointer's runtime code,
 * its denomination in storage and nonce 1, as a deployed contract has; then records it in the
 * bank. Refuses the base denomination (the EVM balance itself, which no ERC20 stands for), a
 * denomination without metadata, and one that has a pointer already.
 */
export async function registerPointer(
  state: StateManagerInterface,
  denom: string,
  denoms: Denoms,
): Promise<Uint8Array> {
  const bank = new Bank(state, denoms);
  if (denom === denoms.base) {
    throw NativeError.sdk(SdkError.InvalidRequest, `${denom} is the EVM balance itself and has no pointer`);
  }
  if (bank.metadata(denom) === undefined) {
    const { codespace, code, description } = DENOM_METADATA_NOT_FOUND;
    throw new NativeError(code, codespace, `denom ${denom} has no metadata: ${description}`);
  }
  if ((await bank.pointerOf(denom)) !== undefined) {
    throw NativeError.sdk(SdkError.InvalidRequest, `pointer already registered for denom ${denom}`);
  }
  const pointer = pointerAddressOf(denom);
  const address = new Address(pointer);
  // Keeps any wei sent to the address before.
  const account = (await state.getAccount(address)) ?? new Account();
  account.nonce = 1n;
  await state.putAccount(address, account);
  await state.putCode(address, hexToBytes(POINTER_RUNTIME_CODE));
  await putSolidityString(state, address, DENOM_SLOT, denom);
  await bank.recordPointer(denom, pointer);
  return pointer;
}

import { bytesToHex, concatBytes, type Address } from '@ethereumjs/util';
import type { StateAccess } from '../../api/replayer.js';
import { ADDR_PRECOMPILE_ADDRESS } from '../native/association.js';
import { AUTH_ADDRESS } from '../native/auth.js';
import { BANK_ADDRESS } from '../native/bank.js';

/** What a state record is: an account, its code, or one of its storage slots. */
export type StateRecordKind = 'account' | 'code' | 'storage';

/** Key prefixes of {@link StateAccess.key}, one per record kind. */
const KEY_PREFIX: Record<StateRecordKind, number> = { account: 0x01, code: 0x02, storage: 0x03 };

/** The native modules whose records live in a system account's storage, by that account's address. */
const MODULE_ACCOUNTS = new Map<string, string>([
  [bytesToHex(BANK_ADDRESS), 'bank'],
  [bytesToHex(AUTH_ADDRESS), 'auth'],
  [ADDR_PRECOMPILE_ADDRESS, 'addr'],
]);

/** The module a record of `address` belongs to: a native module's system account, or `evm`. */
function moduleOf(address: Address): string {
  return MODULE_ACCOUNTS.get(address.toString()) ?? 'evm';
}

/** One state access as tracers are told it. */
export function stateAccessOf(
  op: StateAccess['op'],
  kind: StateRecordKind,
  address: Address,
  slot: Uint8Array | undefined,
  value: Uint8Array,
): StateAccess {
  const key = concatBytes(Uint8Array.of(KEY_PREFIX[kind]), address.bytes, slot ?? new Uint8Array());
  return { module: moduleOf(address), op, key, value };
}

import {
  codec,
  CodecError,
  collectionCodec,
  decodeInto,
  eachInTurns,
  jsonKind,
  whenDecoded,
  type ParamCodec,
} from './codec.js';
import { address, data, hash, quantity, uint64 } from './hex-codecs.js';
import { arrayOf, objectOf } from './structural-codecs.js';
import { InvalidInputError } from '../errors/rpc-error.js';

type Hex = `0x${string}`;

/** An EIP-2930 access list entry. */
export interface AccessListEntry {
  readonly address: Hex;
  readonly storageKeys: readonly Hex[];
}

const accessListEntry = objectOf('types.AccessTuple', { address, storageKeys: arrayOf(hash) });

/** An EIP-2930 access list. */
export const accessList = arrayOf(accessListEntry);

/** An EIP-7702 authorization as a call object carries it. */
export interface AuthorizationEntry {
  readonly chainId: bigint;
  readonly address: Hex;
  readonly nonce: bigint;
  readonly yParity: bigint;
  readonly r: bigint;
  readonly s: bigint;
}

const authorizationEntry = objectOf('types.SetCodeAuthorization', {
  chainId: quantity,
  address,
  nonce: uint64,
  yParity: uint64,
  r: quantity,
  s: quantity,
});

/**
 * A call object (geth's `TransactionArgs`) as `eth_call`, `eth_estimateGas`,
 * `eth_createAccessList`, `eth_sendTransaction` and `debug_traceCall` take it. `input` and `data`
 * are merged into `input`. A `type` (ethers sends one) is not read, as geth does not read it: the
 * type follows from the fields given.
 */
export interface CallRequest {
  readonly from?: Hex;
  readonly to?: Hex;
  readonly gas?: bigint;
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly value?: bigint;
  readonly nonce?: bigint;
  readonly input?: Uint8Array;
  readonly accessList?: readonly AccessListEntry[];
  readonly authorizationList?: readonly AuthorizationEntry[];
  readonly chainId?: bigint;
}

const transactionArgs = objectOf('ethapi.TransactionArgs', {
  from: address.optional(),
  to: address.optional(),
  gas: uint64.optional(),
  gasPrice: quantity.optional(),
  maxFeePerGas: quantity.optional(),
  maxPriorityFeePerGas: quantity.optional(),
  value: quantity.optional(),
  nonce: uint64.optional(),
  data: data.optional(),
  input: data.optional(),
  accessList: accessList.optional(),
  authorizationList: arrayOf(authorizationEntry).optional(),
  chainId: quantity.optional(),
});

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

/** A call object; `data` and `input` may both be given only when equal (decisions.md D9, cast sends both). */
export const callRequest = codec('ethapi.TransactionArgs', (value): CallRequest => {
  const { data: dataField, input, ...rest } = transactionArgs.decode(value);
  if (dataField !== undefined && input !== undefined && !sameBytes(dataField, input)) {
    throw new InvalidInputError(
      'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    );
  }
  const callData = input ?? dataField;
  return callData === undefined ? rest : { ...rest, input: callData };
});

/** Per-account state overrides of a simulated call (geth's `OverrideAccount`). */
export interface AccountOverride {
  readonly nonce?: bigint;
  readonly code?: Uint8Array;
  readonly balance?: bigint;
  /** Replaces the whole storage. */
  readonly state?: ReadonlyMap<Hex, Hex>;
  /** Changes only the listed slots. */
  readonly stateDiff?: ReadonlyMap<Hex, Hex>;
}

/** State overrides by address. */
export type StateOverrides = ReadonlyMap<Hex, AccountOverride>;

/** A JSON object whose keys and values both decode with codecs (a Go map). */
function mapOf<K, V>(goType: string, key: (text: string) => K, value: ParamCodec<V>) {
  return collectionCodec(goType, (input, turns): Map<K, V> | Promise<Map<K, V>> => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new CodecError(jsonKind(input), goType);
    }
    const members = input as Record<string, unknown>;
    const names = Object.keys(members);
    const decoded = new Map<K, V>();
    // A member's key is decoded after its value, as Go's decoder does.
    const set = (index: number, item: V): void => void decoded.set(key(names[index]!), item);
    const step = (index: number): void | Promise<void> => decodeInto(value, members[names[index]!], turns, index, set);
    return whenDecoded(eachInTurns(names.length, step, turns), () => decoded);
  });
}

const storageMap = mapOf('map[common.Hash]common.Hash', (slot) => hash.decode(slot), hash);

const overrideAccount = objectOf('ethapi.OverrideAccount', {
  nonce: uint64.optional(),
  code: data.optional(),
  balance: quantity.optional(),
  state: storageMap.optional(),
  stateDiff: storageMap.optional(),
});

/** The state overrides parameter of `eth_call` and the estimate methods. */
export const stateOverrides = mapOf<Hex, AccountOverride>(
  'ethapi.StateOverride',
  (text) => address.decode(text),
  overrideAccount,
);

/** Block-context overrides of `eth_call`; both geth's older and newer field names are read. */
export interface BlockOverrides {
  readonly number?: bigint;
  readonly time?: bigint;
  readonly gasLimit?: bigint;
  readonly coinbase?: Hex;
  readonly prevRandao?: Hex;
  readonly baseFee?: bigint;
}

const blockOverrideFields = objectOf('ethapi.BlockOverrides', {
  number: quantity.optional(),
  time: uint64.optional(),
  gasLimit: uint64.optional(),
  coinbase: address.optional(),
  feeRecipient: address.optional(),
  random: hash.optional(),
  prevRandao: hash.optional(),
  baseFee: quantity.optional(),
  baseFeePerGas: quantity.optional(),
});

/** The block overrides parameter of `eth_call`. */
export const blockOverrides = codec('ethapi.BlockOverrides', (value): BlockOverrides => {
  const { feeRecipient, random, baseFeePerGas, ...fields } = blockOverrideFields.decode(value);
  const coinbase = fields.coinbase ?? feeRecipient;
  const prevRandao = fields.prevRandao ?? random;
  const baseFee = fields.baseFee ?? baseFeePerGas;
  return {
    ...(fields.number === undefined ? {} : { number: fields.number }),
    ...(fields.time === undefined ? {} : { time: fields.time }),
    ...(fields.gasLimit === undefined ? {} : { gasLimit: fields.gasLimit }),
    ...(coinbase === undefined ? {} : { coinbase }),
    ...(prevRandao === undefined ? {} : { prevRandao }),
    ...(baseFee === undefined ? {} : { baseFee }),
  };
});

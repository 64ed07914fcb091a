import { concatBytes, setLengthLeft } from '@ethereumjs/util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak256 } from '../native-crypto.js';
import { bech32 } from '@scure/base';
import { ChainParams } from '../chain-params.js';

/** Longest bech32 string read, as the Cosmos SDK's decoder allows. */
const BECH32_MAX_LENGTH = 1023;
/** Longest native address, in bytes (the Cosmos SDK's limit). */
const NATIVE_ADDRESS_MAX_BYTES = 255;

/** A native address string that cannot be read; the messages follow the Cosmos SDK's. */
export class NativeAddressError extends Error {
  override readonly name = 'NativeAddressError';
}

/**
 * The curve point of a secp256k1 public key: SEC1 bytes (33 compressed, 65 uncompressed) or the
 * 64 bytes of x and y that ethereumjs recovers from a transaction. Throws when it is not a point
 * on the curve.
 */
function keyPoint(publicKey: Uint8Array): InstanceType<typeof secp256k1.Point> {
  return secp256k1.Point.fromBytes(publicKey.length === 64 ? concatBytes(Uint8Array.of(4), publicKey) : publicKey);
}

/** The EVM address of a public key: the last 20 bytes of keccak256 of its uncompressed x and y. */
export function evmAddressOfKey(publicKey: Uint8Array): Uint8Array {
  return keccak256(keyPoint(publicKey).toBytes(false).subarray(1)).subarray(12);
}

/** The native address bytes of a public key: RIPEMD160(SHA256(compressed key)), as Cosmos SDK secp256k1 keys. */
export function nativeAddressOfKey(publicKey: Uint8Array): Uint8Array {
  return ripemd160(sha256(keyPoint(publicKey).toBytes(true)));
}

/** The bech32 string of native address bytes. */
export function encodeNativeAddress(bytes: Uint8Array): string {
  return bech32.encode(ChainParams.bech32Prefix, bech32.toWords(bytes), BECH32_MAX_LENGTH);
}

/** The bytes of a bech32 native address; throws {@link NativeAddressError} when it is not one. */
export function decodeNativeAddress(text: string): Uint8Array {
  if (text.trim().length === 0) throw new NativeAddressError('empty address string is not allowed');
  let prefix: string;
  let bytes: Uint8Array;
  try {
    const decoded = bech32.decode(text as `${string}1${string}`, BECH32_MAX_LENGTH);
    prefix = decoded.prefix;
    bytes = bech32.fromWords(decoded.words);
  } catch (error) {
    throw new NativeAddressError(`decoding bech32 failed: ${(error as Error).message}`);
  }
  if (prefix !== ChainParams.bech32Prefix) {
    throw new NativeAddressError(`invalid Bech32 prefix; expected ${ChainParams.bech32Prefix}, got ${prefix}`);
  }
  if (bytes.length === 0) throw new NativeAddressError('addresses cannot be empty');
  if (bytes.length > NATIVE_ADDRESS_MAX_BYTES) {
    throw new NativeAddressError(`address max length is ${NATIVE_ADDRESS_MAX_BYTES}, got ${bytes.length}`);
  }
  return bytes;
}

/** The native address of an unassociated EVM address: the bech32 of the same 20 bytes (decisions.md D5). */
export function castNativeAddress(evmAddress: Uint8Array): string {
  return encodeNativeAddress(evmAddress);
}

/**
 * The EVM address of an unassociated native address: the same bytes (decisions.md D5); a longer
 * address keeps its last 20 bytes, a shorter one is left-padded, as the reference chain does.
 */
export function castEvmAddress(nativeAddress: string): Uint8Array {
  return castEvmAddressOf(decodeNativeAddress(nativeAddress));
}

/** {@link castEvmAddress} of native address bytes. */
export function castEvmAddressOf(nativeAddress: Uint8Array): Uint8Array {
  return setLengthLeft(nativeAddress.slice(-20), 20);
}

import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createTxFromRLP, paramsTx, type TxOptions, type TypedTransaction } from '@ethereumjs/tx';
import { Address, bytesToBigInt, bytesToHex, publicToAddress, type PrefixedHexString } from '@ethereumjs/util';
import { keccak256, nativeCrypto } from '../native-crypto.js';

/** Fields of each accepted envelope, signature included: legacy (type 0), 1, 2 and 4. */
const FIELD_COUNTS: Readonly<Record<number, number>> = { 0: 9, 1: 11, 2: 12, 4: 13 };

/** The RLP fields of a raw transaction of a known type and shape, or undefined. */
function fieldsOf(raw: Uint8Array): { type: number; fields: Uint8Array[] } | undefined {
  const type = raw[0]! >= 0xc0 ? 0 : raw[0]!;
  try {
    const decoded = RLP.decode(type === 0 ? raw : raw.subarray(1));
    if (!Array.isArray(decoded) || decoded.length !== FIELD_COUNTS[type]) return undefined;
    // Access and authorization lists are nested; every field read here is a plain byte string.
    return { type, fields: decoded as Uint8Array[] };
  } catch {
    return undefined;
  }
}

/**
 * The chain ID a well-formed raw transaction claims, read once the transaction library has
 * refused it: geth reports a wrong chain ID as such, not as a decoding error.
 */
export function claimedChainId(raw: Uint8Array): bigint | undefined {
  const shape = fieldsOf(raw);
  if (shape === undefined) return undefined;
  const field = shape.fields[shape.type === 0 ? 6 : 0];
  if (!(field instanceof Uint8Array)) return undefined;
  if (shape.type !== 0) return bytesToBigInt(field);
  const v = bytesToBigInt(field);
  return v >= 35n ? (v - 35n) / 2n : undefined;
}

/** The fee fields of a type 2 or 4 raw transaction and its recovered sender, for geth's tip-above-cap message. */
export function feeFieldsOf(raw: Uint8Array): { sender: PrefixedHexString; tip: bigint; cap: bigint } | undefined {
  const shape = fieldsOf(raw);
  if (shape === undefined || (shape.type !== 2 && shape.type !== 4)) return undefined;
  const { fields, type } = shape;
  const [yParity, r, s] = fields.slice(-3) as [Uint8Array, Uint8Array, Uint8Array];
  const unsigned = Uint8Array.from([type, ...RLP.encode(fields.slice(0, -3))]);
  try {
    const publicKey = nativeCrypto.ecrecover!(keccak256(unsigned), bytesToBigInt(yParity), r, s);
    return {
      sender: bytesToHex(publicToAddress(publicKey)),
      tip: bytesToBigInt(fields[2]!),
      cap: bytesToBigInt(fields[3]!),
    };
  } catch {
    return undefined;
  }
}

/**
 * Transaction options that build and decode fast. Every transaction merges the transaction
 * parameters into its own copy of Common and rebuilds that copy's parameter cache. Merged once
 * here, and with the merge turned off on this instance (copies inherit it), decoding no longer
 * rebuilds anything.
 */
export function fastTxOptions(chainCommon: Common): TxOptions {
  const common = chainCommon.copy();
  common.updateParams(paramsTx);
  common.updateParams = () => undefined;
  return { common };
}

/**
 * A signed transaction decoded by ethereumjs (`options` from {@link fastTxOptions}), its sender's
 * address worked out once: ethereumjs keeps the recovered public key but hashes it again at every
 * `getSenderAddress`, which a block's execution asks four times per transaction, and with its
 * pure-JS Keccak rather than the chain's (about 15 µs against 1.5). Its hash is that of `raw`:
 * decoding accepts only canonical RLP, so `raw` is the serialisation ethereumjs would build again
 * to hash it (about 12 µs). Frozen as ethereumjs freezes it, after the memos are in place. With
 * `recovered`, the sender's public key and the hash that the same decoding worked out on another
 * thread are taken instead of worked out again.
 */
export function decodeSignedTransaction(
  raw: Uint8Array,
  options: TxOptions,
  recovered?: { readonly senderPublicKey: Uint8Array; readonly hash: Uint8Array },
): TypedTransaction {
  const tx = createTxFromRLP(raw, { ...options, freeze: false });
  tx.cache.hash = recovered?.hash ?? keccak256(raw);
  if (recovered !== undefined) tx.cache.senderPubKey = recovered.senderPublicKey;
  let sender: Address | undefined;
  // An address is the last 20 bytes of the Keccak-256 of the 64-byte public key.
  const senderOf = () => new Address(keccak256(tx.getSenderPublicKey()).subarray(12));
  Object.defineProperty(tx, 'getSenderAddress', { value: () => (sender ??= senderOf()) });
  Object.freeze(tx);
  return tx;
}

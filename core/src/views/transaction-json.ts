import { Capability, TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt, bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import { effectiveTip } from '../chain/pool/pooled-transaction.js';

const quantity = (value: bigint | number): PrefixedHexString => `0x${value.toString(16)}`;

/** Where a committed transaction is; absent for a pool transaction. */
export interface TransactionPlace {
  readonly blockHash: PrefixedHexString;
  readonly blockNumber: number;
  /** The block's timestamp, in seconds. */
  readonly blockTimestamp: PrefixedHexString;
  readonly index: number;
  readonly baseFee: bigint;
}

function accessListJson(tx: TypedTransaction): { address: PrefixedHexString; storageKeys: PrefixedHexString[] }[] {
  if (!('accessList' in tx)) return [];
  return tx.accessList.map(([address, keys]) => ({
    address: bytesToHex(address),
    storageKeys: keys.map((key) => bytesToHex(key)),
  }));
}

function authorizationListJson(tx: TypedTransaction): Record<string, PrefixedHexString>[] {
  if (!('authorizationList' in tx)) return [];
  return tx.authorizationList.map(([chainId, address, nonce, yParity, r, s]) => ({
    chainId: quantity(bytesToBigInt(chainId)),
    address: bytesToHex(address),
    nonce: quantity(bytesToBigInt(nonce)),
    yParity: quantity(bytesToBigInt(yParity)),
    r: quantity(bytesToBigInt(r)),
    s: quantity(bytesToBigInt(s)),
  }));
}

/**
 * A transaction in geth's `RPCTransaction` shape and field order (with geth 1.16's
 * `blockTimestamp`, which the execution-apis schema requires). `gasPrice` of a fee-market
 * transaction is what it paid once mined, its fee cap while pending; a pool transaction has null
 * block fields.
 */
export function formatTransaction(
  tx: TypedTransaction,
  identity: { readonly hash: PrefixedHexString; readonly from: PrefixedHexString },
  place?: TransactionPlace,
): Record<string, unknown> {
  const feeMarket = tx.supports(Capability.EIP1559FeeMarket);
  const feeCap = 'maxFeePerGas' in tx ? tx.maxFeePerGas : tx.gasPrice;
  const gasPrice = !feeMarket ? feeCap : place === undefined ? feeCap : place.baseFee + effectiveTip(tx, place.baseFee);
  const v = tx.v ?? 0n;
  const typed = tx.type !== TransactionType.Legacy;
  const protectedLegacy = !typed && v >= 35n;
  return {
    blockHash: place?.blockHash ?? null,
    blockNumber: place === undefined ? null : quantity(place.blockNumber),
    blockTimestamp: place?.blockTimestamp ?? null,
    from: identity.from,
    gas: quantity(tx.gasLimit),
    gasPrice: quantity(gasPrice),
    ...(feeMarket && 'maxPriorityFeePerGas' in tx
      ? { maxFeePerGas: quantity(tx.maxFeePerGas), maxPriorityFeePerGas: quantity(tx.maxPriorityFeePerGas) }
      : {}),
    hash: identity.hash,
    input: bytesToHex(tx.data),
    nonce: quantity(tx.nonce),
    to: tx.to?.toString() ?? null,
    transactionIndex: place === undefined ? null : quantity(place.index),
    value: quantity(tx.value),
    type: quantity(tx.type),
    ...(typed ? { accessList: accessListJson(tx), chainId: quantity(tx.common.chainId()) } : {}),
    ...(protectedLegacy ? { chainId: quantity((v - 35n) / 2n) } : {}),
    ...(tx.type === TransactionType.EOACodeEIP7702 ? { authorizationList: authorizationListJson(tx) } : {}),
    v: quantity(v),
    r: quantity(tx.r ?? 0n),
    s: quantity(tx.s ?? 0n),
    ...(typed ? { yParity: quantity(v) } : {}),
  };
}

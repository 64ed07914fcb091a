import { Capability, TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt, bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import { effectiveTip } from '../chain/pool/pooled-transaction.js';
import { toQuantity } from '../rpc/hex-codecs.js';

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
    chainId: toQuantity(bytesToBigInt(chainId)),
    address: bytesToHex(address),
    nonce: toQuantity(bytesToBigInt(nonce)),
    yParity: toQuantity(bytesToBigInt(yParity)),
    r: toQuantity(bytesToBigInt(r)),
    s: toQuantity(bytesToBigInt(s)),
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
    blockNumber: place === undefined ? null : toQuantity(place.blockNumber),
    blockTimestamp: place?.blockTimestamp ?? null,
    from: identity.from,
    gas: toQuantity(tx.gasLimit),
    gasPrice: toQuantity(gasPrice),
    ...(feeMarket && 'maxPriorityFeePerGas' in tx
      ? { maxFeePerGas: toQuantity(tx.maxFeePerGas), maxPriorityFeePerGas: toQuantity(tx.maxPriorityFeePerGas) }
      : {}),
    hash: identity.hash,
    input: bytesToHex(tx.data),
    nonce: toQuantity(tx.nonce),
    to: tx.to?.toString() ?? null,
    transactionIndex: place === undefined ? null : toQuantity(place.index),
    value: toQuantity(tx.value),
    type: toQuantity(tx.type),
    ...(typed ? { accessList: accessListJson(tx), chainId: toQuantity(tx.common.chainId()) } : {}),
    ...(protectedLegacy ? { chainId: toQuantity((v - 35n) / 2n) } : {}),
    ...(tx.type === TransactionType.EOACodeEIP7702 ? { authorizationList: authorizationListJson(tx) } : {}),
    v: toQuantity(v),
    r: toQuantity(tx.r ?? 0n),
    s: toQuantity(tx.s ?? 0n),
    ...(typed ? { yParity: toQuantity(v) } : {}),
  };
}

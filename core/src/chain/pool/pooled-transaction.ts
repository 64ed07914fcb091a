import type { TypedTransaction } from '@ethereumjs/tx';
import type { PrefixedHexString } from '@ethereumjs/util';

/** A transaction admitted to the pool, with what the block producer and lookups need. */
export interface PooledTransaction {
  readonly tx: TypedTransaction;
  readonly raw: Uint8Array;
  readonly hash: PrefixedHexString;
  readonly sender: PrefixedHexString;
  readonly nonce: bigint;
  /** Admission order, the tie-breaker between equal tips. */
  readonly arrival: number;
  /**
   * The hash of the native transaction that carries it, as every EVM transaction on this chain is
   * carried: worked out before the block that includes it, which indexes it.
   */
  readonly nativeHash: Uint8Array;
}

/** The most a transaction pays per gas: `maxFeePerGas`, or `gasPrice` for legacy types. */
export function feeCap(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? tx.maxFeePerGas : tx.gasPrice;
}

/** The most it tips per gas: `maxPriorityFeePerGas`, or `gasPrice` for legacy types. */
export function tipCap(tx: TypedTransaction): bigint {
  return 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : tx.gasPrice;
}

/** The tip it pays per gas at `baseFee`. */
export function effectiveTip(tx: TypedTransaction, baseFee: bigint): bigint {
  const cap = feeCap(tx) - baseFee;
  const tip = tipCap(tx);
  return tip < cap ? tip : cap;
}

/**
 * Orders transactions by what they pay at `baseFee`, as geth's pool prices them for eviction:
 * effective tip, then fee cap, then tip cap. Negative when `a` pays less.
 */
export function comparePrice(a: TypedTransaction, b: TypedTransaction, baseFee: bigint): number {
  const sign = (difference: bigint): number => (difference < 0n ? -1 : difference > 0n ? 1 : 0);
  return (
    sign(effectiveTip(a, baseFee) - effectiveTip(b, baseFee)) ||
    sign(feeCap(a) - feeCap(b)) ||
    sign(tipCap(a) - tipCap(b))
  );
}

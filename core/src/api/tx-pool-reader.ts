import type { TypedTransaction } from '@ethereumjs/tx';
import type { PrefixedHexString } from '@ethereumjs/util';

/** A transaction waiting in the pool. */
export interface PoolTransaction {
  readonly tx: TypedTransaction;
  /** The signed transaction as submitted. */
  readonly raw: Uint8Array;
  readonly hash: PrefixedHexString;
  readonly sender: PrefixedHexString;
  readonly nonce: bigint;
}

/** One sender's pooled transactions, each list in nonce order. */
export interface SenderPool {
  /** Ready: the run of consecutive nonces from the sender's nonce at the head. */
  readonly pending: readonly PoolTransaction[];
  /** Queued behind a nonce gap. */
  readonly queued: readonly PoolTransaction[];
}

/** The EVM transaction pool, read-only: what `txpool_` and the `pending` views serve. */
export interface TxPoolReader {
  /** How many transactions are ready and how many wait behind a nonce gap. */
  counts(): { readonly pending: number; readonly queued: number };
  /** Every sender with pooled transactions, by lower-case address. */
  content(): ReadonlyMap<PrefixedHexString, SenderPool>;
  /** The pooled transactions of one sender (lower-case address); empty lists when it has none. */
  contentFrom(sender: PrefixedHexString): SenderPool;
  /** A pooled transaction by hash. */
  byHash(hash: PrefixedHexString): PoolTransaction | undefined;
  /** The `pending` nonce: the sender's nonce at the head plus its ready pool transactions. */
  pendingNonce(sender: PrefixedHexString): Promise<bigint>;
}

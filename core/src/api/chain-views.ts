import type { PrefixedHexString } from '@ethereumjs/util';
import type { BlockRef } from '../rpc/block-codecs.js';
import type { RawJson } from '../rpc/raw-json.js';
import type { PoolTransaction } from './tx-pool-reader.js';

/** A JSON-RPC object answer. */
export type JsonObject = Record<string, unknown>;

/**
 * Which transactions a view of a block shows: `eth`, EVM transactions only; the deprecated `ext`
 * and `ext2` namespaces, also the block's synthetic ones, first (decisions.md D5).
 */
export type BlockView = 'eth' | 'ext' | 'ext2';

/**
 * Blocks, transactions and receipts in their JSON-RPC shapes, read from the committed chain
 * (and the pool, for transactions): the `eth_` answers, and those of the legacy namespaces,
 * which add synthetic entries to the same shapes. Unknown blocks and transactions read as null.
 */
export interface ChainViews {
  /** The height a block parameter names, or undefined for a block that does not exist (§2.12). */
  heightOf(ref: BlockRef): Promise<number | undefined>;
  /** A block as an object. */
  block(ref: BlockRef, fullTransactions: boolean, view?: BlockView): Promise<JsonObject | null>;
  /**
   * A block as JSON text, as the methods serve it; recent answers are kept, and one kept for a
   * number or tag comes back at once, without a promise.
   */
  blockJson(ref: BlockRef, fullTransactions: boolean, view?: BlockView): RawJson | null | Promise<RawJson | null>;
  transactionCount(ref: BlockRef, view?: BlockView): Promise<PrefixedHexString | null>;
  /**
   * A committed transaction, else a pooled one (null block fields), else null. In the `ext` view,
   * also a synthetic transaction by its hash, and a native transaction in its synthetic form.
   */
  transactionByHash(hash: PrefixedHexString, view?: BlockView): Promise<JsonObject | null>;
  /** A pooled transaction as {@link transactionByHash} answers it: null block fields. */
  pooledTransaction(pooled: PoolTransaction): JsonObject;
  /** The transaction at `index` in the view's list of the block (synthetic ones first). */
  transactionAt(ref: BlockRef, index: bigint, view?: BlockView): Promise<JsonObject | null>;
  /** A receipt, with indexes and log indexes as the view numbers them; synthetic ones have type 0xffffffff. */
  receipt(hash: PrefixedHexString, view?: BlockView): Promise<JsonObject | null>;
  /**
   * {@link receipt} as JSON text, as the methods serve it, its logs made in turns of the event
   * loop (a receipt may hold 40,000 logs).
   */
  receiptJson(hash: PrefixedHexString, view?: BlockView): Promise<RawJson | null>;
  blockReceipts(ref: BlockRef, view?: BlockView): Promise<JsonObject[] | null>;
  /** {@link blockReceipts} as JSON text, as the methods serve it, made in turns of the event loop. */
  blockReceiptsJson(ref: BlockRef, view?: BlockView): Promise<RawJson | null>;
}

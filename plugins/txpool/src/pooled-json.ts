import { toChecksumAddress } from '@ethereumjs/util';
import type { ChainViews, PoolTransaction } from '@evmnode/core';

/** A pooled transaction as `txpool_content` writes it. */
export interface PooledJson {
  /** Its sender, checksummed: the answer's key. */
  readonly sender: string;
  /** `"<nonce>":` and `eth_getTransactionByHash`'s answer for it, as JSON text: its member of the sender's object. */
  readonly member: Buffer;
}

/**
 * Members up to this size are kept while their transaction is pooled. Larger ones (call data of
 * kilobytes, up to 128 KB) are built again at each call: kept, a full pool of them would hold
 * twice its transactions' bytes again as JSON.
 */
const KEPT_MEMBER_BYTES = 4096;

/** JSON's room for a member beside its transaction's bytes: field names, nulls, the hash and the sender. */
const MEMBER_FRAME_BYTES = 1024;

/**
 * The JSON of pooled transactions, kept while they are pooled when small: a pooled transaction
 * never changes, and formatting and checksumming thousands of them on every call would cost most
 * of the answer's time. Entries go with the pool's own objects (a weak map), so nothing outlives
 * the pool.
 */
export class PooledJsonCache {
  readonly #byTransaction = new WeakMap<PoolTransaction, PooledJson>();

  constructor(private readonly views: ChainViews) {}

  of(pooled: PoolTransaction): PooledJson {
    const kept = this.#byTransaction.get(pooled);
    if (kept !== undefined) return kept;
    const entry = {
      sender: toChecksumAddress(pooled.sender),
      member: Buffer.from(`"${pooled.nonce}":${JSON.stringify(this.views.pooledTransaction(pooled))}`),
    };
    if (entry.member.length <= KEPT_MEMBER_BYTES) this.#byTransaction.set(pooled, entry);
    return entry;
  }

  /**
   * At least the bytes of `pooled`'s member, without building it: the call data doubles as hex,
   * and every other byte of the transaction takes at most four as JSON (an access list entry of
   * 23 bytes without storage keys is 74 characters).
   */
  sizeOf(pooled: PoolTransaction): number {
    const kept = this.#byTransaction.get(pooled);
    if (kept !== undefined) return kept.member.length;
    const data = pooled.tx.data.length;
    return 2 * data + 4 * (pooled.raw.length - data) + MEMBER_FRAME_BYTES;
  }
}

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
 * The JSON of pooled transactions, kept while they are pooled: a pooled transaction never changes,
 * and formatting and checksumming thousands of them on every call would cost most of the answer's
 * time. Entries go with the pool's own objects (a weak map), so nothing outlives the pool.
 */
export class PooledJsonCache {
  readonly #byTransaction = new WeakMap<PoolTransaction, PooledJson>();

  constructor(private readonly views: ChainViews) {}

  of(pooled: PoolTransaction): PooledJson {
    let entry = this.#byTransaction.get(pooled);
    if (entry === undefined) {
      entry = {
        sender: toChecksumAddress(pooled.sender),
        member: Buffer.from(`"${pooled.nonce}":${JSON.stringify(this.views.pooledTransaction(pooled))}`),
      };
      this.#byTransaction.set(pooled, entry);
    }
    return entry;
  }
}

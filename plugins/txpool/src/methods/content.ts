import { toChecksumAddress } from '@ethereumjs/util';
import { defineMethod, type ChainViews, type JsonObject, type TxPoolReader } from '@evmnode/core';

/** `txpool_content`'s answer: transactions by checksummed sender, then by decimal nonce. */
export interface TxPoolContent {
  readonly pending: Record<string, Record<string, JsonObject>>;
  /** Always empty: every unconfirmed transaction is listed under `pending` (interface.md §4.5). */
  readonly queued: Record<string, never>;
}

/**
 * `txpool_content`: every pooled transaction, ready or behind a nonce gap, under `pending`, in
 * `eth_getTransactionByHash`'s pending shape. At most `maxTxs` are listed: senders in address
 * order, each sender's transactions in nonce order (geth's order), and the listing stops at the
 * limit, so a sender's listed transactions are always its lowest nonces.
 */
export function contentMethod(pool: TxPoolReader, views: ChainViews, maxTxs: number) {
  return defineMethod({
    name: 'txpool_content',
    params: [],
    handler: (): TxPoolContent => {
      const pending: Record<string, Record<string, JsonObject>> = {};
      let room = maxTxs;
      const senders = [...pool.content()].sort(([a], [b]) => (a < b ? -1 : 1));
      for (const [sender, txs] of senders) {
        if (room === 0) break;
        // A sender's ready transactions precede its gapped ones in nonce order.
        const listed = [...txs.pending, ...txs.queued].slice(0, room);
        const byNonce: Record<string, JsonObject> = {};
        for (const pooled of listed) byNonce[pooled.nonce.toString()] = views.pooledTransaction(pooled);
        pending[toChecksumAddress(sender)] = byNonce;
        room -= listed.length;
      }
      return { pending, queued: {} };
    },
  });
}

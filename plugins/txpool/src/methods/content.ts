import { defineMethod, RawJson, type TxPoolReader } from '@evmnode/core';
import type { PooledJsonCache } from '../pooled-json.js';

// Shared by every call: a call with thousands of pooled transactions allocates only its answer.
const OPEN = Buffer.from('{"pending":{');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from('}');
const END = Buffer.from('},"queued":{}}');

/**
 * `txpool_content`: `{pending: {<sender, checksummed>: {<nonce, decimal>: tx}}, queued: {}}`, every
 * pooled transaction, ready or behind a nonce gap, under `pending` (interface.md §4.5), in
 * `eth_getTransactionByHash`'s pending shape. At most `maxTxs` are listed: senders in address
 * order, each sender's transactions in nonce order (geth's order), and the listing stops at the
 * limit, so a sender's listed transactions are always its lowest nonces.
 */
export function contentMethod(pool: TxPoolReader, cache: PooledJsonCache, maxTxs: number) {
  return defineMethod({
    name: 'txpool_content',
    params: [],
    handler: (): RawJson => {
      const parts: Buffer[] = [OPEN];
      let room = maxTxs;
      const senders = [...pool.content().values()]
        .map((txs) => [...txs.pending, ...txs.queued])
        .filter((txs) => txs.length > 0);
      // Lower-case keys sort as the addresses do.
      senders.sort((a, b) => (a[0]!.sender < b[0]!.sender ? -1 : 1));
      for (const txs of senders) {
        if (room === 0) break;
        // A sender's ready transactions precede its gapped ones in nonce order.
        const listed = txs.slice(0, room);
        if (room !== maxTxs) parts.push(COMMA);
        parts.push(Buffer.from(`${JSON.stringify(cache.of(listed[0]!).sender)}:{`));
        listed.forEach((pooled, index) => {
          if (index > 0) parts.push(COMMA);
          parts.push(cache.of(pooled).member);
        });
        parts.push(CLOSE);
        room -= listed.length;
      }
      parts.push(END);
      return new RawJson(Buffer.concat(parts));
    },
  });
}

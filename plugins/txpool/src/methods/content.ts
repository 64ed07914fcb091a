import {
  defineMethod,
  EventLoopTurns,
  HELD_ANSWERS_BUSY,
  LimitExceededError,
  RawJson,
  type HeldAnswers,
  type PoolTransaction,
  type RequestContext,
  type TxPoolReader,
} from '@evmnode/core';
import type { PooledJsonCache } from '../pooled-json.js';

// Shared by every call: a call with thousands of pooled transactions allocates only its answer.
const OPEN = Buffer.from('{"pending":{');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from('}');
const END = Buffer.from('},"queued":{}}');

/** The room the node keeps for answers held for clients (core's HeldAnswers). */
export type AnswerRoom = Pick<HeldAnswers, 'take' | 'give'>;

/**
 * `txpool_content`: `{pending: {<sender, checksummed>: {<nonce, decimal>: tx}}, queued: {}}`, every
 * pooled transaction, ready or behind a nonce gap, under `pending` (interface.md §4.5), in
 * `eth_getTransactionByHash`'s pending shape. At most `maxTxs` are listed: senders in address
 * order, each sender's transactions in nonce order (geth's order), and the listing stops at the
 * limit, so a sender's listed transactions are always its lowest nonces.
 *
 * A pool of large transactions makes an answer of up to a quarter of a gigabyte: it takes its
 * room among the answers the node holds before it is built (-32005 when there is none, as for
 * traces and batches), and it is built in turns of the event loop, stopping should its client go.
 */
export function contentMethod(pool: TxPoolReader, cache: PooledJsonCache, room: AnswerRoom, maxTxs: number) {
  return defineMethod({
    name: 'txpool_content',
    params: [],
    handler: async (_params, request): Promise<RawJson> => {
      const listed = listedBySender(pool, maxTxs);
      let bytes = 0;
      for (const txs of listed) for (const pooled of txs) bytes += cache.sizeOf(pooled);
      if (!room.take(bytes)) throw new LimitExceededError(HELD_ANSWERS_BUSY);
      try {
        return await answer(listed, cache, request);
      } finally {
        room.give(bytes);
      }
    },
  });
}

/** The transactions listed, by sender in address order, at most `maxTxs` in all. */
function listedBySender(pool: TxPoolReader, maxTxs: number): PoolTransaction[][] {
  const senders = [...pool.content().values()]
    .map((txs) => [...txs.pending, ...txs.queued])
    .filter((txs) => txs.length > 0);
  // Lower-case keys sort as the addresses do.
  senders.sort((a, b) => (a[0]!.sender < b[0]!.sender ? -1 : 1));
  const listed: PoolTransaction[][] = [];
  let room = maxTxs;
  for (const txs of senders) {
    if (room === 0) break;
    // A sender's ready transactions precede its gapped ones in nonce order.
    listed.push(txs.slice(0, room));
    room -= listed.at(-1)!.length;
  }
  return listed;
}

async function answer(listed: PoolTransaction[][], cache: PooledJsonCache, request: RequestContext): Promise<RawJson> {
  const turns = new EventLoopTurns(undefined, request.clientId);
  const parts: Buffer[] = [OPEN];
  for (const [at, txs] of listed.entries()) {
    if (at > 0) parts.push(COMMA);
    for (const [index, pooled] of txs.entries()) {
      const json = cache.of(pooled);
      parts.push(index === 0 ? Buffer.from(`${JSON.stringify(json.sender)}:{`) : COMMA, json.member);
      const turn = turns.pause();
      if (turn === undefined) continue;
      await turn;
      request.signal.throwIfAborted();
    }
    parts.push(CLOSE);
  }
  parts.push(END);
  return new RawJson(parts);
}

import { LRUCache } from 'lru-cache';
import { clientShareOf } from '../rpc/client-quota.js';
import { TokenBucket } from '../rpc/token-bucket.js';

/** Clients whose rate is remembered; one forgotten starts again with a full bucket, within the node's rate all the same. */
const REMEMBERED_CLIENTS = 10_000;

/**
 * The rate of large log queries: `perSecond` on the node, as in the reference node, and at most
 * `max_client_share` of it for each client, so that one client cannot take every large query the
 * node allows and leave the others refused.
 */
export class LargeQueryRate {
  readonly #node: TokenBucket;
  readonly #perClient: number;
  readonly #clients = new LRUCache<string, TokenBucket>({ max: REMEMBERED_CLIENTS });

  constructor(perSecond: number, clientShare: number) {
    this.#node = new TokenBucket(perSecond);
    this.#perClient = clientShareOf(perSecond, clientShare);
  }

  /** Takes a token for a query of `client` (none named: the node's rate alone); false when it or the node has none left. */
  tryTake(client: string | undefined): boolean {
    if (client !== undefined && this.#perClient < this.#node.perSecond) {
      let bucket = this.#clients.get(client);
      if (bucket === undefined) {
        bucket = new TokenBucket(this.#perClient);
        this.#clients.set(client, bucket);
      }
      if (!bucket.tryTake()) return false;
    }
    return this.#node.tryTake();
  }
}

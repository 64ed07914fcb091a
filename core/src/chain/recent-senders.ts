import type { PrefixedHexString } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';

/**
 * About fourteen full blocks of transfers: trace baking catches up with the head whenever the node
 * is idle; a replay of an older block recovers its senders as before.
 */
const KEPT = 8_192;

/**
 * The sender public keys of the transactions the node executed lately, by transaction hash.
 * Recovering a sender from a signature takes about 60 µs; a replay of a block (trace baking, a
 * live trace) would otherwise recover every sender of the block again, a sixth of its time. A
 * transaction hash names the signed bytes, so the key recovered from them once is the key.
 */
export class RecentSenders {
  readonly #publicKeys = new LRUCache<PrefixedHexString, Uint8Array>({ max: KEPT });

  remember(hash: PrefixedHexString, publicKey: Uint8Array): void {
    this.#publicKeys.set(hash, publicKey);
  }

  publicKeyOf(hash: PrefixedHexString): Uint8Array | undefined {
    return this.#publicKeys.get(hash);
  }
}

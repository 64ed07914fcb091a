import { ClientQuota } from '../rpc/client-quota.js';
import type { LogMatch } from './log-criteria.js';

/**
 * Addresses and topics that the live log filters, or the live logs subscriptions, of a node hold
 * together: about 30 MB of heap. Criteria may list 5,000 (a thousand addresses, a thousand topics
 * at each of four positions), and 10,000 filters or subscriptions of such criteria would hold
 * 5 GB, far past the node's heap: a client subscribing them over one WebSocket stopped the node
 * (out of memory) within seconds.
 */
export const MAX_HELD_CRITERIA_VALUES = 250_000;

/** The addresses and topics `match` lists, at least 1: what holding it costs. */
export function criteriaValues(match: LogMatch): number {
  let values = 1 + (match.addresses?.length ?? 0);
  for (const alternatives of match.topics) values += alternatives?.length ?? 0;
  return values;
}

/**
 * Room for the criteria that live log filters or logs subscriptions hold: at most `total`
 * addresses and topics together, and one client at most its share of them
 * (`max_client_share`), so that no client can fill the room and lock the others out.
 */
export class CriteriaRoom {
  #held = 0;
  readonly #perClient: ClientQuota;

  constructor(
    readonly total: number,
    clientShare: number,
  ) {
    this.#perClient = new ClientQuota(total, clientShare);
  }

  /** Most values one client may hold. */
  get perClient(): number {
    return this.#perClient.perClient;
  }

  /** Takes room for `values` (see {@link criteriaValues}) for `clientId`; false when the node or the client has not that much left. */
  tryTake(clientId: string, values: number): boolean {
    if (this.#held + values > this.total || !this.#perClient.tryAcquire(clientId, values)) return false;
    this.#held += values;
    return true;
  }

  /** Gives back room taken by {@link tryTake}. */
  give(clientId: string, values: number): void {
    this.#held -= values;
    this.#perClient.release(clientId, values);
  }
}

/**
 * What one notification costs against matching one log to one subscription: matching a log that
 * a subscription's address rules out takes about 5 ns here, a notification about 12 µs
 * (formatting shared by the subscriptions it goes to, then written to the socket).
 */
const NOTIFICATION_COST = 1_000;

/**
 * What each client's logs subscriptions have cost the push of one block so far, in matches: each
 * holds its subscriptions' share of the matching (all of them are matched against every log) and
 * its notifications'. Counted by client (`RequestContext.clientId`), not by connection: a client
 * that reconnects at once still carries what it cost.
 */
export class PushLoad {
  readonly #subscriptions = new Map<string, number>();
  readonly #notifications = new Map<string, number>();
  #logsMatched = 0;

  /** `subscriptions`: the logs subscriptions the block is pushed to, by their clients. */
  constructor(subscriptions: Iterable<{ readonly clientId: string }>) {
    for (const { clientId } of subscriptions) {
      this.#subscriptions.set(clientId, (this.#subscriptions.get(clientId) ?? 0) + 1);
    }
  }

  /** A log has been matched against every subscription. */
  logMatched(): void {
    this.#logsMatched += 1;
  }

  notified(clientId: string): void {
    this.#notifications.set(clientId, (this.#notifications.get(clientId) ?? 0) + 1);
  }

  /** What the push has cost so far, for every client it pushes to, those gone since included. */
  total(): number {
    let total = 0;
    for (const clientId of this.#subscriptions.keys()) total += this.cost(clientId);
    return total;
  }

  /** What `clientId`'s subscriptions have cost the push so far; 0 for a client it does not push to. */
  cost(clientId: string): number {
    const subscriptions = this.#subscriptions.get(clientId);
    if (subscriptions === undefined) return 0;
    // Before the first log, the client with the most subscriptions is the one to cost most.
    const matches = subscriptions * Math.max(this.#logsMatched, 1);
    return matches + NOTIFICATION_COST * (this.#notifications.get(clientId) ?? 0);
  }
}

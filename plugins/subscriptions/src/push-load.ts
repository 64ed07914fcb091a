import type { Connection } from '@evmnode/core';

/**
 * What one notification costs against matching one log to one subscription: matching a log that
 * a subscription's address rules out takes about 5 ns here, a notification about 12 µs
 * (formatting shared by the subscriptions it goes to, then written to the socket).
 */
const NOTIFICATION_COST = 1_000;

/**
 * What each connection's logs subscriptions have cost the push of one block so far, in matches:
 * each holds its subscriptions' share of the matching (all of them are matched against every log)
 * and its notifications'.
 */
export class PushLoad {
  readonly #subscriptions = new Map<Connection, number>();
  readonly #notifications = new Map<Connection, number>();
  #logsMatched = 0;

  /** `subscriptions`: the logs subscriptions the block is pushed to, by their connections. */
  constructor(subscriptions: Iterable<{ readonly connection: Connection }>) {
    for (const { connection } of subscriptions) {
      this.#subscriptions.set(connection, (this.#subscriptions.get(connection) ?? 0) + 1);
    }
  }

  /** A log has been matched against every subscription. */
  logMatched(): void {
    this.#logsMatched += 1;
  }

  notified(connection: Connection): void {
    this.#notifications.set(connection, (this.#notifications.get(connection) ?? 0) + 1);
  }

  /** The open connection whose subscriptions have cost the most so far; undefined when none is open. */
  heaviest(): Connection | undefined {
    let heaviest: Connection | undefined;
    let most = -1;
    for (const [connection, subscriptions] of this.#subscriptions) {
      if (!connection.isOpen) continue;
      // Before the first log, the connection with the most subscriptions is the one to cost most.
      const matches = subscriptions * Math.max(this.#logsMatched, 1);
      const cost = matches + NOTIFICATION_COST * (this.#notifications.get(connection) ?? 0);
      if (cost > most) {
        most = cost;
        heaviest = connection;
      }
    }
    return heaviest;
  }
}

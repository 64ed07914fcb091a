import {
  formatHeader,
  formatLog,
  InvalidInputError,
  LimitExceededError,
  newRpcId,
  LogMatcher,
  type Chain,
  type CommittedBlock,
  type Connection,
  type LogMatch,
} from '@evmnode/core';

interface Subscription {
  readonly id: string;
  readonly connection: Connection;
  /** Logs subscriptions match with this; newHeads ones have none. */
  readonly logs?: LogMatcher;
}

/**
 * WebSocket subscriptions (interface.md §4.10, §6): each committed block is pushed, once it is
 * durable, as a `newHeads` header and as one notification per matching log, in chain order.
 * Subscriptions belong to their connection and end with it; a consumer too slow to read is
 * disconnected by the transport.
 */
export class SubscriptionHub {
  readonly #newHeads = new Map<string, Subscription>();
  readonly #logs = new Map<string, Subscription>();
  #stopListening: (() => void) | undefined;

  constructor(
    private readonly chain: Chain,
    private readonly maxNewHeads: number,
  ) {}

  start(): void {
    this.#stopListening = this.chain.events.onBlock((committed) => this.#publish(committed));
  }

  stop(): void {
    this.#stopListening?.();
    this.#newHeads.clear();
    this.#logs.clear();
  }

  subscribeNewHeads(connection: Connection): string {
    if (this.#newHeads.size >= this.maxNewHeads) throw new LimitExceededError('no new subscription can be created');
    return this.#add(this.#newHeads, { id: newRpcId(), connection });
  }

  subscribeLogs(connection: Connection, match: LogMatch): string {
    return this.#add(this.#logs, { id: newRpcId(), connection, logs: new LogMatcher(match) });
  }

  /** Ends a subscription of `connection`; another connection's or an unknown one is -32000. */
  unsubscribe(connection: Connection, id: string): boolean {
    for (const subscriptions of [this.#newHeads, this.#logs]) {
      if (subscriptions.get(id)?.connection === connection) {
        subscriptions.delete(id);
        return true;
      }
    }
    throw new InvalidInputError('subscription not found');
  }

  #add(subscriptions: Map<string, Subscription>, subscription: Subscription): string {
    subscriptions.set(subscription.id, subscription);
    subscription.connection.onClose(() => subscriptions.delete(subscription.id));
    return subscription.id;
  }

  #publish({ block, receipts }: CommittedBlock): void {
    if (this.#newHeads.size > 0) {
      const header = formatHeader(block);
      for (const subscription of this.#newHeads.values()) notify(subscription, header);
    }
    if (this.#logs.size === 0) return;
    for (const receipt of receipts) {
      for (const log of receipt.logs) {
        let json: Record<string, unknown> | undefined;
        for (const subscription of this.#logs.values()) {
          if (!subscription.logs!.matches(log.address, log.topics)) continue;
          json ??= formatLog(log, block.hash, block.height);
          notify(subscription, json);
        }
      }
    }
  }
}

function notify(subscription: Subscription, result: unknown): void {
  subscription.connection.notify('eth_subscription', { subscription: subscription.id, result });
}

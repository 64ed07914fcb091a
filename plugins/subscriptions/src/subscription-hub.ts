import {
  defineConnectionState,
  formatHeader,
  formatLog,
  InvalidInputError,
  LimitExceededError,
  newRpcId,
  LogMatcher,
  type ChainReader,
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

export interface SubscriptionLimits {
  /** Most newHeads subscriptions on the node (`max_subscriptions_new_head`). */
  readonly maxNewHeads: number;
  /** Most logs subscriptions on the node (`max_subscriptions_logs`). */
  readonly maxLogs: number;
  /** Most subscriptions of either kind one connection holds (`max_subscriptions_per_connection`). */
  readonly maxPerConnection: number;
}

/**
 * The subscriptions a connection holds, ended together when it closes (one close listener per
 * connection, so that subscribing and unsubscribing in a loop holds nothing).
 */
const HELD = defineConnectionState('subscriptions held', () => ({ ids: new Set<string>(), watched: false }));

/** The refusal of every cap, as the reference node words it: a retry may succeed once some end. */
const CAP_REACHED = 'no new subscription can be created';

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
    private readonly chain: ChainReader,
    private readonly limits: SubscriptionLimits,
  ) {}

  start(): void {
    this.#stopListening = this.chain.onBlock((committed) => this.#publish(committed));
  }

  stop(): void {
    this.#stopListening?.();
    this.#newHeads.clear();
    this.#logs.clear();
  }

  subscribeNewHeads(connection: Connection): string {
    this.#checkCaps(this.#newHeads, this.limits.maxNewHeads, connection);
    return this.#add(this.#newHeads, { id: newRpcId(), connection });
  }

  subscribeLogs(connection: Connection, match: LogMatch): string {
    this.#checkCaps(this.#logs, this.limits.maxLogs, connection);
    return this.#add(this.#logs, { id: newRpcId(), connection, logs: new LogMatcher(match) });
  }

  /** Ends a subscription of `connection`; another connection's or an unknown one is -32000. */
  unsubscribe(connection: Connection, id: string): boolean {
    for (const subscriptions of [this.#newHeads, this.#logs]) {
      if (subscriptions.get(id)?.connection === connection) {
        subscriptions.delete(id);
        connection.state(HELD).ids.delete(id);
        return true;
      }
    }
    throw new InvalidInputError('subscription not found');
  }

  /** -32005 when the node holds `most` subscriptions of this kind or the connection its share. */
  #checkCaps(subscriptions: Map<string, Subscription>, most: number, connection: Connection): void {
    if (subscriptions.size >= most || connection.state(HELD).ids.size >= this.limits.maxPerConnection) {
      throw new LimitExceededError(CAP_REACHED);
    }
  }

  #add(subscriptions: Map<string, Subscription>, subscription: Subscription): string {
    const { connection, id } = subscription;
    subscriptions.set(id, subscription);
    const held = connection.state(HELD);
    held.ids.add(id);
    if (!held.watched) {
      held.watched = true;
      connection.onClose(() => {
        for (const heldId of held.ids) {
          this.#newHeads.delete(heldId);
          this.#logs.delete(heldId);
        }
      });
    }
    return id;
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

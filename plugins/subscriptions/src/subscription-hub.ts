import {
  ClientQuota,
  EventLoopTurns,
  CriteriaRoom,
  criteriaValues,
  defineConnectionState,
  formatHeader,
  formatLog,
  InvalidInputError,
  LimitExceededError,
  MAX_HELD_CRITERIA_VALUES,
  newRpcId,
  LogMatcher,
  type ChainReader,
  type CommittedBlock,
  type Connection,
  type LogMatch,
  type PluginContext,
} from '@evmnode/core';
import { BacklogTrend } from './backlog-trend.js';
import { PushLoad } from './push-load.js';

interface Subscription {
  readonly id: string;
  readonly connection: Connection;
  /** The client whose share it takes (`RequestContext.clientId`). */
  readonly clientId: string;
  /** The room its criteria take ({@link criteriaValues}); 0 for newHeads. */
  readonly values: number;
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
  /** Share of each kind's cap one client may hold, over all its connections (`max_client_share`). */
  readonly clientShare: number;
  /**
   * Logs of committed blocks not yet pushed whole, past which a block with logs that grows them
   * closes the connections of the client whose subscriptions cost the push under way the most
   * (`max_unpushed_logs`).
   */
  readonly maxUnpushedLogs: number;
}

/** The subscriptions of one kind, their cap on the node, and what each client holds of it. */
class SubscriptionKind {
  readonly byId = new Map<string, Subscription>();
  readonly perClient: ClientQuota;

  constructor(
    readonly most: number,
    clientShare: number,
  ) {
    this.perClient = new ClientQuota(most, clientShare);
  }

  /** Ends `id` if it is of this kind, giving its client's share back; the subscription ended. */
  end(id: string): Subscription | undefined {
    const subscription = this.byId.get(id);
    if (subscription === undefined) return undefined;
    this.byId.delete(id);
    this.perClient.release(subscription.clientId);
    return subscription;
  }
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
 * durable, as a `newHeads` header and as one notification per matching log; headers in chain
 * order, logs in chain order, the two apart. Subscriptions belong to their connection and end with
 * it; a consumer too slow to read is disconnected by the transport, and the connections of the
 * client whose subscriptions hold the logs' pushes more than `maxUnpushedLogs` behind the chain are
 * closed (1008).
 */
export class SubscriptionHub {
  readonly #newHeads: SubscriptionKind;
  readonly #logs: SubscriptionKind;
  readonly #criteriaRoom: CriteriaRoom;
  #stopListening: (() => void) | undefined;
  /** Settles once the headers of the blocks committed so far are pushed. */
  #headersPushed = Promise.resolve();
  /** Settles once the logs of the blocks committed so far are pushed. */
  #logsPushed = Promise.resolve();
  /** Logs of the blocks committed and not yet pushed whole. */
  #unpushedLogs = 0;
  /** Whether {@link #unpushedLogs} keeps growing. */
  readonly #backlog = new BacklogTrend();
  /** What the push under way has cost each client; undefined between pushes. */
  #pushLoad: PushLoad | undefined;
  /** What the last push finished cost each client. */
  #lastPushLoad: PushLoad | undefined;
  /** Clients shed for holding pushes back so far: a push under way then drops their subscriptions. */
  #shed = 0;

  constructor(
    private readonly chain: ChainReader,
    private readonly limits: SubscriptionLimits,
    private readonly logger: PluginContext['logger'],
  ) {
    this.#newHeads = new SubscriptionKind(limits.maxNewHeads, limits.clientShare);
    this.#logs = new SubscriptionKind(limits.maxLogs, limits.clientShare);
    this.#criteriaRoom = new CriteriaRoom(MAX_HELD_CRITERIA_VALUES, limits.clientShare);
  }

  start(): void {
    this.#stopListening = this.chain.onBlock((committed) => {
      const logs = committed.receipts.reduce((total, receipt) => total + receipt.logs.length, 0);
      this.#unpushedLogs += logs;
      const growing = this.#backlog.grows(this.#unpushedLogs);
      if (logs > 0 && growing && this.#unpushedLogs > this.limits.maxUnpushedLogs) this.#shedHeaviest();
      // Headers and logs each go one block after another, each block whole, but apart: a block's
      // logs may take seconds to push to a heavy subscriber, and no one's headers wait for them.
      // A failure is logged and the next block pushed still: a rejected chain would stop them all.
      this.#headersPushed = this.#headersPushed
        .then(() => this.#pushHeader(committed))
        .catch((error: unknown) => this.logger.error({ err: error }, 'pushing a header to subscriptions failed'));
      this.#logsPushed = this.#logsPushed
        .then(() => this.#pushLogs(committed))
        .catch((error: unknown) => this.logger.error({ err: error }, 'pushing logs to subscriptions failed'))
        .then(() => {
          this.#unpushedLogs -= logs;
        });
    });
  }

  stop(): void {
    this.#stopListening?.();
    this.#newHeads.byId.clear();
    this.#logs.byId.clear();
  }

  subscribeNewHeads(connection: Connection, clientId: string): string {
    return this.#add(this.#newHeads, connection, clientId);
  }

  subscribeLogs(connection: Connection, clientId: string, match: LogMatch): string {
    return this.#add(this.#logs, connection, clientId, match);
  }

  /** Ends a subscription of `connection`; another connection's or an unknown one is -32000. */
  unsubscribe(connection: Connection, id: string): boolean {
    const held = connection.state(HELD);
    if (!held.ids.has(id)) throw new InvalidInputError('subscription not found');
    held.ids.delete(id);
    this.#end(id);
    return true;
  }

  /** Ends subscription `id`, of either kind, giving back what it took. */
  #end(id: string): void {
    const ended = this.#newHeads.end(id) ?? this.#logs.end(id);
    if (ended !== undefined && ended.values > 0) this.#criteriaRoom.give(ended.clientId, ended.values);
  }

  /**
   * Closes the connections of the client whose logs subscriptions have cost the push under way
   * and the one before it the most, of the clients holding logs subscriptions now, ending their
   * subscriptions at once: otherwise the blocks waiting for their logs' push, and everyone's logs
   * with them, pile up without bound (a client reading 28,000 logs a block on each of 20
   * subscriptions). Its new connections count as its old ones did: a client that reconnects at
   * once is shed again, not the others of the push it held back. No one is closed while the
   * clients holding subscriptions cost less than half of those pushes: the others, gone, held
   * them back.
   */
  #shedHeaviest(): void {
    const load = this.#pushLoad;
    if (load === undefined) return;
    const holding = new Map<string, Set<Connection>>();
    for (const { clientId, connection } of this.#logs.byId.values()) {
      if (!connection.isOpen) continue;
      const connections = holding.get(clientId) ?? new Set<Connection>();
      holding.set(clientId, connections.add(connection));
    }
    // The push under way may have begun while a client was away: what it cost the push before counts too.
    const costOf = (clientId: string) => load.cost(clientId) + (this.#lastPushLoad?.cost(clientId) ?? 0);
    let client: string | undefined;
    let most = 0;
    let holdingCost = 0;
    for (const clientId of holding.keys()) {
      const cost = costOf(clientId);
      holdingCost += cost;
      if (cost > most) {
        most = cost;
        client = clientId;
      }
    }
    // Clients gone (dropped, or shed before) held the pushes back: without them, the blocks left
    // are pushed to the others in a few turns.
    if (2 * holdingCost < load.total() + (this.#lastPushLoad?.total() ?? 0)) return;
    if (client === undefined) return;
    const connections = holding.get(client)!;
    this.logger.info(
      { client, connections: connections.size, unpushedLogs: this.#unpushedLogs },
      'closing the connections of the client whose logs subscriptions hold the pushes behind the chain',
    );
    for (const connection of connections) {
      const held = connection.state(HELD);
      for (const id of held.ids) this.#end(id);
      held.ids.clear();
      connection.close(`subscriptions more than ${this.limits.maxUnpushedLogs} logs behind the chain`);
    }
    this.#shed += 1;
  }

  /**
   * A new subscription of `kind` (of logs when `match` is given), or -32005 when the node holds its
   * cap of that kind, the connection its cap, the client its share of the kind (over all its
   * connections), or the logs subscriptions' criteria the room they may take.
   */
  #add(kind: SubscriptionKind, connection: Connection, clientId: string, match?: LogMatch): string {
    const held = connection.state(HELD);
    if (kind.byId.size >= kind.most || held.ids.size >= this.limits.maxPerConnection) {
      throw new LimitExceededError(CAP_REACHED);
    }
    const values = match === undefined ? 0 : criteriaValues(match);
    if (!kind.perClient.tryAcquire(clientId)) throw new LimitExceededError(CAP_REACHED);
    if (values > 0 && !this.#criteriaRoom.tryTake(clientId, values)) {
      kind.perClient.release(clientId);
      throw new LimitExceededError(CAP_REACHED);
    }
    const id = newRpcId();
    const logs = match === undefined ? undefined : new LogMatcher(match);
    kind.byId.set(id, { id, connection, clientId, values, ...(logs && { logs }) });
    held.ids.add(id);
    if (!held.watched) {
      held.watched = true;
      connection.onClose(() => {
        for (const heldId of held.ids) this.#end(heldId);
      });
    }
    return id;
  }

  /** Pushes a block's header to the `newHeads` subscriptions held now, in turns of the event loop. */
  async #pushHeader({ block }: CommittedBlock): Promise<void> {
    const newHeads = [...this.#newHeads.byId.values()];
    if (newHeads.length === 0) return;
    const turns = new EventLoopTurns();
    const header = formatHeader(block);
    for (const subscription of newHeads) await this.#notify(this.#newHeads, subscription, header, turns);
  }

  /**
   * Pushes a block's logs to the `logs` subscriptions held now, in turns of the event loop: a block
   * of 28,000 logs pushed to ten subscriptions of every log held the node's thread for 5.7 s.
   */
  async #pushLogs(committed: CommittedBlock): Promise<void> {
    const logs = [...this.#logs.byId.values()];
    if (logs.length === 0) return;
    const load = new PushLoad(logs);
    this.#pushLoad = load;
    try {
      await this.#notifyLogs(committed, logs, load);
      this.#lastPushLoad = load;
    } finally {
      this.#pushLoad = undefined;
    }
  }

  /** Notifies each of the `logs` subscriptions given of the block's logs that it matches. */
  async #notifyLogs({ block, receipts }: CommittedBlock, held: readonly Subscription[], load: PushLoad): Promise<void> {
    const turns = new EventLoopTurns();
    let logs = held;
    let shed = this.#shed;
    for (const receipt of receipts) {
      for (const log of receipt.logs) {
        let json: Record<string, unknown> | undefined;
        for (const subscription of logs) {
          if (!subscription.logs!.matches(log.address, log.topics)) continue;
          json ??= formatLog(log, block.hash, block.height);
          await this.#notify(this.#logs, subscription, json, turns, load);
        }
        load.logMatched();
        // Matching alone takes long too: 28,000 logs against thousands of subscriptions that match none.
        const turn = turns.pause();
        if (turn !== undefined) await turn;
        if (shed !== this.#shed) {
          shed = this.#shed;
          logs = logs.filter((subscription) => this.#logs.byId.has(subscription.id));
        }
      }
    }
  }

  /** Notifies `subscription` unless it ended (or its connection closed) while the block was being pushed. */
  async #notify(
    kind: SubscriptionKind,
    subscription: Subscription,
    result: unknown,
    turns: EventLoopTurns,
    load?: PushLoad,
  ): Promise<void> {
    if (!kind.byId.has(subscription.id) || !subscription.connection.isOpen) return;
    subscription.connection.notify('eth_subscription', { subscription: subscription.id, result });
    load?.notified(subscription.clientId);
    const turn = turns.pause();
    if (turn !== undefined) await turn;
  }
}

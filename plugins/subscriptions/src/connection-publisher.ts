import { EventLoopTurns, type Connection, type LogMatcher } from '@evmnode/core';
import type { BlockPush } from './block-push.js';

/** A subscription as a block is pushed to it. */
export interface PushTarget {
  readonly id: string;
  /** Logs subscriptions match with this; newHeads ones have none. */
  readonly logs?: LogMatcher;
}

/** What a {@link ConnectionPublisher} asks of the hub it publishes for. */
export interface PublisherHub {
  /** Whether a subscription is still held (not ended since the block was committed). */
  held(target: PushTarget): boolean;
  /** The queue is empty again: the publisher may be dropped. */
  idle(): void;
  /** Pushing failed, which only a fault of the node's makes happen: the blocks queued are dropped. */
  failed(error: unknown): void;
}

/** A block to push, the connection's subscriptions held when it was committed, and when that was. */
interface Queued {
  readonly push: BlockPush;
  readonly newHeads: readonly PushTarget[];
  readonly logs: readonly PushTarget[];
  readonly committedAt: number;
}

/**
 * One connection's notifications: its blocks are pushed one after another, each whole, in its
 * client's turns of the node's thread (`EventLoopTurns` with the client), so that a connection
 * whose subscriptions ask for millions of notifications a block takes its client's share of the
 * thread and no more. Once the oldest block it has yet to push was committed more than `maxLagMs`
 * ago (`write_timeout`, as an answer still unwritten then closes its connection), the connection
 * is closed: the blocks waiting would otherwise pile up.
 */
export class ConnectionPublisher {
  readonly #queue: Queued[] = [];
  #running = false;

  constructor(
    private readonly connection: Connection,
    private readonly clientId: string,
    private readonly maxLagMs: number,
    private readonly hub: PublisherHub,
  ) {}

  push(push: BlockPush, newHeads: readonly PushTarget[], logs: readonly PushTarget[]): void {
    const now = Date.now();
    const oldest = this.#queue[0];
    if (oldest !== undefined && now - oldest.committedAt > this.maxLagMs) {
      this.#queue.length = 0;
      this.connection.close(`notifications more than ${this.maxLagMs} ms behind the chain`);
      return;
    }
    this.#queue.push({ push, newHeads, logs, committedAt: now });
    if (!this.#running) this.#run().catch((error: unknown) => this.hub.failed(error));
  }

  async #run(): Promise<void> {
    this.#running = true;
    const turns = new EventLoopTurns(undefined, this.clientId);
    try {
      for (let next = this.#queue[0]; next !== undefined; next = this.#queue[0]) {
        await this.#publish(next, turns);
        this.#queue.shift();
      }
    } finally {
      this.#running = false;
      this.#queue.length = 0;
      this.hub.idle();
    }
  }

  async #publish({ push, newHeads, logs }: Queued, turns: EventLoopTurns): Promise<void> {
    for (const target of newHeads) {
      this.#notify(target, push.header);
      const turn = turns.pause();
      if (turn !== undefined) await turn;
    }
    if (logs.length === 0) return;
    for (let index = 0; index < push.logs.length; index++) {
      const { address, topics } = push.logs[index]!;
      // Matching alone takes a while too: 28,000 logs against 1,000 subscriptions.
      for (const target of logs) if (target.logs!.matches(address, topics)) this.#notify(target, push.logJson(index));
      const turn = turns.pause();
      if (turn !== undefined) await turn;
    }
  }

  /** Notifies `target` unless it ended, or its connection started closing, since the block was committed. */
  #notify(target: PushTarget, result: unknown): void {
    if (this.connection.isOpen && this.hub.held(target)) {
      this.connection.notify('eth_subscription', { subscription: target.id, result });
    }
  }
}

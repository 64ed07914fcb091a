import { EventLoopTurns, type Connection, type LogMatcher } from '@evmnode/core';
import type { BlockPush } from './block-push.js';

/** A subscription as a block is pushed to it. */
export interface PushTarget {
  readonly id: string;
  readonly connection: Connection;
  /** Logs subscriptions match with this; newHeads ones have none. */
  readonly logs?: LogMatcher;
}

/**
 * Blocks a client's pushes may fall behind the chain before its connections are closed: about
 * six seconds of 400 ms blocks, each block held until pushed.
 */
export const MAX_BLOCKS_BEHIND = 16;

/** Why a client's connections are closed when its pushes fall too far behind. */
export const TOO_FAR_BEHIND = `subscriptions more than ${MAX_BLOCKS_BEHIND} blocks behind the chain`;

/** What a {@link ClientPublisher} asks of the hub it publishes for. */
export interface PublisherHub {
  /** Whether a subscription is still held (not ended since the block was committed). */
  held(target: PushTarget): boolean;
  /** The queue is empty again: the publisher may be dropped. */
  idle(): void;
  /** Pushing failed, which only a fault of the node's makes happen: the blocks queued are dropped. */
  failed(error: unknown): void;
}

/** A block to push, and the client's subscriptions held when it was committed. */
interface Queued {
  readonly push: BlockPush;
  readonly newHeads: readonly PushTarget[];
  readonly logs: readonly PushTarget[];
}

/**
 * One client's notifications: its blocks are pushed one after another, each whole, in the
 * client's turns of the node's thread (`EventLoopTurns` with the client), so that a client whose
 * subscriptions ask for millions of notifications a block takes its share of the thread and no
 * more. Once it falls {@link MAX_BLOCKS_BEHIND} blocks behind, its connections are closed, as a
 * WebSocket client that reads too slowly is.
 */
export class ClientPublisher {
  readonly #queue: Queued[] = [];
  #running = false;

  constructor(
    private readonly clientId: string,
    private readonly hub: PublisherHub,
  ) {}

  push(push: BlockPush, newHeads: readonly PushTarget[], logs: readonly PushTarget[]): void {
    if (this.#queue.length >= MAX_BLOCKS_BEHIND) {
      const connections = new Set([...newHeads, ...logs].map((target) => target.connection));
      for (const connection of connections) connection.close(TOO_FAR_BEHIND);
      return;
    }
    this.#queue.push({ push, newHeads, logs });
    if (!this.#running) this.#run().catch((error: unknown) => this.hub.failed(error));
  }

  async #run(): Promise<void> {
    this.#running = true;
    const turns = new EventLoopTurns(undefined, this.clientId);
    try {
      for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
        await this.#publish(next, turns);
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
      // Matching alone takes a while too: 28,000 logs against 2,500 subscriptions.
      for (const target of logs) if (target.logs!.matches(address, topics)) this.#notify(target, push.logJson(index));
      const turn = turns.pause();
      if (turn !== undefined) await turn;
    }
  }

  /** Notifies `target` unless it ended, or its connection started closing, since the block was committed. */
  #notify(target: PushTarget, result: unknown): void {
    if (target.connection.isOpen && this.hub.held(target)) {
      target.connection.notify('eth_subscription', { subscription: target.id, result });
    }
  }
}

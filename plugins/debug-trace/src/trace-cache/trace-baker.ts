import { setTimeout as sleep } from 'node:timers/promises';
import { EventLoopTurns, type ChainReader, type PluginContext, type Replayer } from '@evmnode/core';
import { jsonOf } from '../block-trace-json.js';
import { tracerNamed } from '../tracers/index.js';
import { tracersTogether, type TracersTogether } from '../tracers/mux-tracer.js';
import { yielding } from '../tracers/yielding.js';
import { BAKED_TRACERS, type BakedTracer, type BakedTransaction, type TraceStore } from './trace-store.js';

/** The baked tracers, each with an empty config, over one execution. */
const BAKING_CONFIG = {
  tracerConfig: Object.fromEntries(Object.keys(BAKED_TRACERS).map((tracer) => [tracer, {}])),
};

/**
 * A block's transactions are replayed once no block has committed for this long: a node committing
 * blocks back to back (on-demand blocks under a test suite that sends and waits, or a follower
 * catching up) is not slowed by baking them meanwhile, and one on a block time bakes each shortly
 * after it commits. Blocks without EVM transactions, which need no replay, are marked at once.
 */
const QUIET_MS = 20;
/**
 * ...and once the node's thread has been mostly idle over this long: baking shares that thread,
 * and under a stream of transactions it would take the time admitting them needs (a fifth of the
 * ERC20 transfers a node could take in).
 */
const IDLE_WINDOW_MS = 50;
/** The share of {@link IDLE_WINDOW_MS} the thread may have been busy for baking to go ahead. */
const BUSY_SHARE = 0.5;
/** ...or once it has waited this long, so that baking still moves while the node is never idle. */
const MAX_WAIT_MS = 5_000;
/**
 * The most a block's baked results may weigh, all tracers together: each transaction's are bounded,
 * but a block of many large ones is left to live traces rather than held whole to be stored.
 */
const MAX_BAKED_BLOCK_BYTES = 128 * 1024 * 1024;

/**
 * Bakes committed blocks' traces into the {@link TraceStore} in the background (decisions.md D7):
 * one block at a time, oldest first, from the last baked one (or the oldest block traces may
 * reach) to the head, then each block as it commits, when the node is between blocks and idle.
 * One replay per block runs the baked tracers together; blocks without EVM transactions are only
 * marked.
 */
export class TraceBaker {
  readonly #stopped = new AbortController();
  #unsubscribe: (() => void) | undefined;
  #running: Promise<void> | undefined;
  /** Set when a block commits while a bake runs: the loop looks at the head again. */
  #behind = false;
  /** When the last block committed (`performance.now()`). */
  #lastBlockAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly replayer: Replayer,
    private readonly chain: ChainReader,
    private readonly store: TraceStore,
    private readonly logger: PluginContext['logger'],
    /** `max_trace_lookback_blocks`: no older block is baked; -1 for no limit. */
    private readonly lookbackBlocks: number,
  ) {}

  start(): void {
    this.#unsubscribe = this.chain.onBlock(() => {
      this.#lastBlockAt = performance.now();
      this.#wake();
    });
    this.#wake();
  }

  /** Stops baking: the block being baked is abandoned, to be baked again after a restart. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#stopped.abort();
    await this.#running;
  }

  #wake(): void {
    if (this.#running !== undefined) {
      this.#behind = true;
      return;
    }
    this.#running = this.#bakeToHead()
      .catch((error: unknown) => {
        if (!this.#stopped.signal.aborted) this.logger.error({ err: error }, 'trace baking stopped');
      })
      .finally(() => {
        this.#running = undefined;
        if (this.#behind && !this.#stopped.signal.aborted) this.#wake();
      });
  }

  async #bakeToHead(): Promise<void> {
    this.#behind = false;
    let height = ((await this.store.bakedHeight()) ?? 0) + 1;
    for (; height <= this.chain.head().height; height++) {
      if (this.#stopped.signal.aborted) return;
      height = Math.max(height, this.#oldestTraceable());
      const baked = await this.#bakeOrSkip(height);
      await this.store.save(height, baked);
      // Logged once stored: from here on the block's traces are served from the cache.
      if (baked.length > 0) this.logger.debug({ height, transactions: baked.length }, 'baked block traces');
    }
  }

  /**
   * Resolves once no block has committed for {@link QUIET_MS} and the thread was mostly idle over
   * the last {@link IDLE_WINDOW_MS}, or after {@link MAX_WAIT_MS}.
   */
  async #whenIdle(): Promise<void> {
    const giveUpAt = performance.now() + MAX_WAIT_MS;
    for (;;) {
      const quietAt = this.#lastBlockAt + QUIET_MS;
      const since = performance.eventLoopUtilization();
      await sleep(Math.max(IDLE_WINDOW_MS, quietAt - performance.now()), undefined, { signal: this.#stopped.signal });
      const now = performance.now();
      const idle = performance.eventLoopUtilization(since).utilization < BUSY_SHARE;
      if ((idle && now >= this.#lastBlockAt + QUIET_MS) || now >= giveUpAt) return;
    }
  }

  /** The oldest block traces may reach now: within the lookback, on a state the node still keeps. */
  #oldestTraceable(): number {
    const head = this.chain.head().height;
    const lookback = this.lookbackBlocks < 0 ? 1 : head - this.lookbackBlocks;
    return Math.max(1, this.chain.earliestStateHeight() + 1, lookback);
  }

  /** A block that cannot be baked is left to live traces, rather than holding up every later one. */
  async #bakeOrSkip(height: number): Promise<BakedTransaction[]> {
    try {
      return await this.#bake(height);
    } catch (error) {
      if (this.#stopped.signal.aborted) throw error;
      this.logger.warn({ err: error, height }, 'could not bake block traces; they will be traced live');
      return [];
    }
  }

  /** The baked results of block `height`'s EVM transactions; none, without a replay, for a block without any. */
  async #bake(height: number): Promise<BakedTransaction[]> {
    const block = await this.chain.blockAt(height);
    if (block === undefined || block.transactions.length === 0) return [];
    await this.#whenIdle();
    const tracers: TracersTogether[] = [];
    // Baking has no deadline of its own: it stops only with the node.
    const run = {
      signal: this.#stopped.signal,
      deadline: Number.POSITIVE_INFINITY,
      timeoutError: () => new Error('stopped'),
      // The node's own work, one block at a time, bounded by the block's gas: it takes no room from clients' answers.
      room: { take: () => true, give: () => {} },
    };
    const outcomes = await this.replayer.replayBlock(
      height,
      (subject) => {
        const tracer = tracersTogether(tracerNamed, subject, BAKING_CONFIG, run);
        tracers.push(tracer);
        return yielding(tracer.hooks);
      },
      { signal: this.#stopped.signal, background: true },
    );
    // Each transaction's results are made JSON in turns of their own: they hold up no block.
    const turns = new EventLoopTurns();
    const baked: BakedTransaction[] = [];
    let bytes = 0;
    for (const [index, outcome] of outcomes.entries()) {
      await turns.pause();
      const byTracer = await tracers[index]!.results(outcome);
      const results = Object.fromEntries(
        byTracer.map(([tracer, result]) => {
          const json = jsonOf(result);
          bytes += json.length;
          return [tracer, json.bytes.toString('utf8')];
        }),
      ) as Record<BakedTracer, string>;
      if (bytes > MAX_BAKED_BLOCK_BYTES) throw new Error(`the block's traces pass ${MAX_BAKED_BLOCK_BYTES} bytes`);
      baked.push({ index: outcome.index, results });
    }
    return baked;
  }
}

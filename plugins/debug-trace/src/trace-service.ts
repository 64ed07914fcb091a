import {
  blockRefOf,
  defineToken,
  FailFastLimiter,
  HELD_ANSWERS_BUSY,
  InvalidInputError,
  LimitExceededError,
  RawJson,
  type BlockRecord,
  type BlockRef,
  type CallRequest,
  type ChainReader,
  type EvmTracer,
  type PluginContext,
  type Replayer,
} from '@evmnode/core';
import { jsonOf } from './block-trace-json.js';
import { parseGoDuration } from './go-duration.js';
import { consensusTraceOf, receiptTraceOf, StateAccessTracer, type StateAccessReport } from './state-access.js';
import { bakedTracerOf, type CachedTraces } from './trace-cache/cached-traces.js';
import type { TraceConfig, TraceCallConfig } from './trace-config.js';
import { isJsTracer, tracerFor } from './tracers/index.js';
import { RoomShare } from './tracers/room-share.js';
import type { ResultRoom, TraceRun, TransactionTracer } from './tracers/tracer.js';
import { yielding } from './tracers/yielding.js';

/** One transaction's entry in a block trace: its result (JSON, in a live trace), or why it could not be traced. */
export type BlockTraceEntry =
  | { readonly txHash: `0x${string}`; readonly result: unknown }
  | { readonly txHash: `0x${string}`; readonly error: string };

/** Who asks for a trace, and when the asker stops waiting. */
export interface TraceRequest {
  /** The client, for its share of the concurrent traces. */
  readonly clientId: string;
  /** Fires when the request's deadline passes. */
  readonly signal: AbortSignal;
}

/** The limits of a node's traces, from `[evm]`. */
export interface TraceLimits {
  /** `max_concurrent_trace_calls`: traces running at once; more are refused at once. */
  readonly concurrency: number;
  /** `max_client_share`: the share of them one client may hold. */
  readonly clientShare: number;
  /** `trace_timeout`, in ms: the most any one trace may take, whatever its own `timeout`. */
  readonly timeoutMs: number;
  /** `max_trace_lookback_blocks`: how far below the head blocks are traced; -1 for no limit. */
  readonly lookbackBlocks: number;
  /** `trace_allow_js_tracers`: whether a `tracer` may be JavaScript code. */
  readonly jsTracers: boolean;
}

/** The trace {@link TraceService.failedTransactions} runs: one whose block traces are baked. */
const FAILURE_PROBE: TraceConfig = { tracer: 'callTracer' };

/** geth's default for a trace's own `timeout`. */
const DEFAULT_TIMEOUT = '5s';

/**
 * The most a block trace's results may weigh as JSON: each transaction's struct logs have a bound
 * of their own, but a large block holds many transactions.
 */
const MAX_BLOCK_TRACE_BYTES = 128 * 1024 * 1024;

/**
 * The debug namespace's traces, for `debug_trace*` and for other plugins (the legacy
 * `ext_traceBlockBy*ExcludeTraceFail`): geth's tracers over the core Replayer, with the limits
 * of interface.md §4.8 and decisions.md D7.
 */
export class TraceService {
  readonly #limiter: FailFastLimiter;

  constructor(
    private readonly replayer: Replayer,
    private readonly chain: ChainReader,
    private readonly limits: TraceLimits,
    private readonly cache: CachedTraces,
    private readonly logger: PluginContext['logger'],
    /** The node's room for answers held for clients (core's HeldAnswers): what traces gather takes from it. */
    private readonly answerRoom: ResultRoom,
  ) {
    this.#limiter = new FailFastLimiter(
      limits.concurrency,
      limits.clientShare,
      () => 'trace request rejected due to concurrency limit: server busy',
    );
  }

  /** The trace of committed transaction `hash`: from the trace cache (as {@link RawJson}) when it holds it. */
  async traceTransaction(hash: `0x${string}`, config: TraceConfig, request: TraceRequest): Promise<unknown> {
    const cached = await this.#cachedTransaction(hash, config);
    if (cached !== undefined) return cached;
    return this.#run(config, request, async (run, tracers) => {
      await this.replayer.replayTransaction(
        hash,
        (subject) => {
          this.#checkLookback(subject);
          return yielding(tracers.attach(tracerFor(config.tracer)(subject, config, run)));
        },
        { signal: run.signal },
      );
      return tracers.results[0];
    });
  }

  /**
   * The traces of every EVM transaction of the block `ref` names, in block order: from the trace
   * cache, as the whole answer's JSON ({@link RawJson}), when it holds them.
   */
  async traceBlock(ref: BlockRef, config: TraceConfig, request: TraceRequest): Promise<BlockTraceEntry[] | RawJson> {
    const cached = await this.#cachedBlock(ref, config);
    if (cached !== undefined) return cached;
    return this.#run(config, request, async (run, tracers) => {
      const height = await this.chain.resolveHeight(ref);
      this.#checkLookback({ block: { height } });
      const factory = tracerFor(config.tracer);
      const outcomes = await this.replayer.replayBlock(
        height,
        (subject) => yielding(tracers.attach(factory(subject, config, run), true)),
        { signal: run.signal },
      );
      return outcomes.map((outcome, index) => ({ txHash: outcome.hash, result: tracers.results[index] }));
    });
  }

  /**
   * The hashes of the transactions of block `ref` whose trace fails (the `{txHash, error}` entries
   * of {@link traceBlock}), for the legacy `ExcludeTraceFail` methods: by `callTracer`, whose block
   * traces are mostly baked at commit and read from storage, and which stores only whole successes.
   */
  async failedTransactions(ref: BlockRef, request: TraceRequest): Promise<ReadonlySet<string>> {
    const block = await this.chain.blockAt(await this.chain.resolveHeight(ref));
    // Nothing to trace (genesis, which cannot be replayed, among them).
    if (block === undefined || block.transactions.length === 0) return new Set();
    const entries = await this.traceBlock(blockRefOf(BigInt(block.height)), FAILURE_PROBE, request);
    if (!Array.isArray(entries)) return new Set();
    return new Set(entries.filter((entry) => 'error' in entry).map((entry) => entry.txHash));
  }

  /**
   * The state committed transaction `hash` read and wrote, by module, with the consensus records
   * and stored receipts its replay rests on (decisions.md D7): the block and its parent, whose
   * state root the replay starts from, and the receipts of the transactions replayed, it last.
   */
  traceStateAccess(hash: `0x${string}`, request: TraceRequest): Promise<StateAccessReport> {
    return this.#run({}, request, async (run) => {
      const accesses = new StateAccessTracer();
      let block: BlockRecord | undefined;
      const replayed = await this.replayer.replayTransaction(
        hash,
        (subject) => {
          this.#checkLookback(subject);
          block = subject.block;
          return accesses;
        },
        { signal: run.signal },
      );
      const { height } = block!;
      const parent = await this.chain.blockAt(height - 1);
      const receipts = [];
      for (let index = 0; index <= replayed.index; index++) {
        const receipt = await this.chain.receiptFieldsAt({ height, index });
        if (receipt !== undefined) receipts.push(receiptTraceOf(height, receipt));
      }
      return {
        app: { modules: accesses.modules },
        consensus: { traces: [consensusTraceOf(block!), consensusTraceOf(parent!)] },
        receipt: { traces: receipts },
      };
    });
  }

  /** The trace of a call run as `eth_call` runs it on the state after block `ref`. */
  traceCall(call: CallRequest, ref: BlockRef, config: TraceCallConfig, request: TraceRequest): Promise<unknown> {
    if (ref.kind === 'tag' && ref.tag === 'pending') {
      throw new InvalidInputError('tracing on top of pending is not supported');
    }
    return this.#run(config, request, async (run, tracers) => {
      const overrides = {
        ...(config.stateOverrides === undefined ? {} : { state: config.stateOverrides }),
        ...(config.blockOverrides === undefined ? {} : { block: config.blockOverrides }),
      };
      await this.replayer.traceCall(
        call,
        ref,
        (subject) => {
          this.#checkLookback(subject);
          return yielding(tracers.attach(tracerFor(config.tracer)(subject, config, run)));
        },
        overrides,
        { signal: run.signal },
      );
      return tracers.results[0];
    });
  }

  async #cachedTransaction(hash: `0x${string}`, config: TraceConfig): Promise<RawJson | undefined> {
    const tracer = bakedTracerOf(config);
    if (tracer === undefined) return undefined;
    const location = await this.chain.locationOf(hash);
    if (location === undefined) return undefined;
    this.#checkLookback({ block: { height: location.height } });
    const cached = await this.cache.transaction(tracer, location.height, location.index);
    if (cached !== undefined) this.logger.debug({ tracer, hash }, 'trace served from the trace cache');
    return cached;
  }

  async #cachedBlock(ref: BlockRef, config: TraceConfig): Promise<RawJson | undefined> {
    const tracer = bakedTracerOf(config);
    if (tracer === undefined) return undefined;
    const height = await this.chain.resolveHeight(ref);
    this.#checkLookback({ block: { height } });
    const block = await this.chain.blockAt(height);
    const cached = await this.cache.block(tracer, height, block?.transactions ?? []);
    if (cached !== undefined) this.logger.debug({ tracer, height }, 'block trace served from the trace cache');
    return cached;
  }

  /**
   * Runs one trace within the concurrency limit and its time limit: a trace past it fails whole.
   * The tracers it makes are disposed of when it ends.
   */
  #run<T>(
    config: TraceConfig,
    request: TraceRequest,
    trace: (run: TraceRun, tracers: TracersMade) => Promise<T>,
  ): Promise<T> {
    if (isJsTracer(config.tracer) && !this.limits.jsTracers) {
      throw new InvalidInputError('JavaScript tracers are disabled on this node (trace_allow_js_tracers = false)');
    }
    const timeout = config.timeout ?? DEFAULT_TIMEOUT;
    // A timeout of zero or less ends the trace at once, as geth's context deadline does.
    const timeoutMs = Math.min(parseGoDuration(timeout), this.limits.timeoutMs);
    return this.#limiter.run('trace', request.clientId, () => {
      // One signal for the deadline and the request's end (cheaper than AbortSignal.any's weak references).
      const stop = new AbortController();
      // Made only when a trace times out: an error's stack trace costs more than a fast trace.
      const timeoutError = () => new InvalidInputError(`execution timeout: the trace took longer than ${timeout}`);
      const timer = setTimeout(() => stop.abort(timeoutError()), timeoutMs);
      const requestEnded = () => stop.abort(request.signal.reason);
      if (request.signal.aborted) requestEnded();
      else request.signal.addEventListener('abort', requestEnded, { once: true });
      const tracers = new TracersMade(this.answerRoom);
      const run = { signal: stop.signal, deadline: Date.now() + timeoutMs, timeoutError, room: tracers.room };
      return trace(run, tracers)
        .then((result) => {
          // A trace that kept the thread past its deadline, before the timer could fire, timed out all the same.
          if (Date.now() >= run.deadline) throw timeoutError();
          return result;
        })
        .finally(() => {
          clearTimeout(timer);
          request.signal.removeEventListener('abort', requestEnded);
          tracers.dispose();
        });
    });
  }

  /** Refuses a block further below the head than `max_trace_lookback_blocks`. */
  #checkLookback(subject: { readonly block: { readonly height: number } }): void {
    const { lookbackBlocks } = this.limits;
    const head = this.chain.head().height;
    if (lookbackBlocks >= 0 && head - subject.block.height > lookbackBlocks) {
      throw new InvalidInputError(`block number ${subject.block.height} is beyond max lookback of ${lookbackBlocks}`);
    }
  }
}

/**
 * The tracers one trace made, and their results, in order; and the room the trace took for what
 * it gathers (results made JSON, struct logs being written), given back when it ends.
 */
class TracersMade {
  readonly #all: TransactionTracer[] = [];
  readonly results: unknown[] = [];
  readonly room: RoomShare;
  /** The bytes of the results made JSON so far. */
  #jsonBytes = 0;

  constructor(room: ResultRoom) {
    this.room = new RoomShare(room);
  }

  /**
   * `tracer`'s hooks, building its result in `finish`: the last moment the replay's state holds
   * what the transaction left, which a JS tracer's `result(ctx, db)` may read. With `asJson` (a
   * block's traces), the result is made JSON there, in its transaction's turn of the event loop, and
   * the results together may weigh {@link MAX_BLOCK_TRACE_BYTES} at most. Results that are JSON
   * take room for their bytes.
   */
  attach(tracer: TransactionTracer, asJson = false): EvmTracer {
    // A block's earlier transaction is done with (its result made JSON, or its error taken): a JS
    // tracer's sandbox thread goes back for the next, rather than one thread held per transaction.
    if (asJson) this.#all.at(-1)?.dispose?.();
    const at = this.#all.push(tracer) - 1;
    const { hooks } = tracer;
    return {
      ...hooks,
      finish: async (outcome) => {
        await hooks.finish?.(outcome);
        const result = await tracer.result(outcome);
        const kept = asJson ? jsonOf(result) : result;
        if (kept instanceof RawJson) this.#gather(kept.length, asJson);
        this.results[at] = kept;
      },
    };
  }

  /** Takes room for a result of `bytes` as JSON, one of a block's traces when `ofBlock`. */
  #gather(bytes: number, ofBlock: boolean): void {
    if (ofBlock && (this.#jsonBytes += bytes) > MAX_BLOCK_TRACE_BYTES) {
      throw new InvalidInputError(
        `trace too large: the block's traces pass ${MAX_BLOCK_TRACE_BYTES / 1024 / 1024} MiB; trace its transactions one at a time`,
      );
    }
    if (!this.room.take(bytes)) throw new LimitExceededError(HELD_ANSWERS_BUSY);
  }

  dispose(): void {
    for (const tracer of this.#all) tracer.dispose?.();
    this.room.release();
  }
}

/** The tokens debug-trace provides to plugins set up after it. */
export const DebugTraceTokens = {
  /** geth's tracers over committed blocks and simulated calls, with the node's trace limits. */
  TraceService: defineToken<TraceService>('DebugTraceService'),
} as const;

import type { Block } from '@ethereumjs/block';
import type { EVM } from '@ethereumjs/evm';
import { Address, bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { Bloom, type VM } from '@ethereumjs/vm';
import { keccak256 } from './native-crypto.js';
import type { Logger } from 'pino';
import type { Chain } from './chain.js';
import { baseFeeAfter } from './base-fee.js';
import { BlockDurations } from './block-durations.js';
import { createBlockVM, executionBlock, runBlockTransaction, type TransactionResult } from './block-execution.js';
import { readParentHashSlot, storeParentHash } from './evm/block-history.js';
import { gethVmError } from './simulation/call-errors.js';
import { fastBlockOptions } from './evm/evm-common.js';
import { dataHashOf, type ConsensusHeader } from './consensus-header.js';
import { NativeEffects } from './native/native-effects.js';
import { deliver, type Delivered, type NativeRules } from './native/native-executor.js';
import { nativeRecordsOf } from './native/native-records.js';
import type { NativeTransaction } from './native/native-transaction.js';
import { effectiveTip, type PooledTransaction } from './pool/pooled-transaction.js';
import {
  blockRecordOf,
  type BlockRecord,
  blockSizeOf,
  receiptsRootOf,
  type CommittedBlock,
  type LogRecord,
  type ReceiptRecord,
  type ReceiptResult,
} from './records.js';
import { readAccounts } from './state/concurrent-reads.js';
import { PRODUCER_STATE_CACHES, stateManagerAt, type WorldState } from './state/world-state.js';
import { uint64BE } from '../storage/buckets.js';
import { toQuantity } from '../rpc/hex-codecs.js';
import type { Turns } from '../rpc/event-loop-turns.js';

export interface ProducerSettings {
  /** 0: blocks on demand, as soon as transactions are ready, and never empty. */
  readonly blockTimeMs: number;
  readonly createEmptyBlocks: boolean;
  /** What native transactions are checked against when delivered. */
  readonly nativeRules: Omit<NativeRules, 'denoms'>;
}

/** What a full block is taken to need until the node has timed its own. */
const FIRST_FULL_BLOCK_MS = 200;

/**
 * How often a block that waits for transactions selects again. Under a stream of about 1,500
 * transfers a second, this many milliseconds bring about a twentieth of a full block.
 */
const RESELECT_MS = 20;

/** The intrinsic gas of a plain transfer, the least any EVM transaction takes. */
const MIN_TX_GAS = 21_000n;

/** The bloom of a receipt without logs, written once rather than for each such transaction (most transfers). */
const EMPTY_BLOOM = bytesToHex(new Uint8Array(256));

/**
 * When a block is due, as a `performance.now()` time; while the block before it is written past
 * its own due time, the promise of the time that block's publication sets.
 */
type Due = number | Promise<number>;

/** The last attempt to produce a block failed: with what, and since when attempts fail. */
export interface ProductionFailure {
  readonly message: string;
  readonly since: Date;
}

/** A block another node produced, as a follower replicates it. */
export interface UpstreamBlock {
  readonly height: number;
  readonly hash: PrefixedHexString;
  readonly timeMs: bigint;
  readonly proposer: PrefixedHexString;
  readonly natives: readonly NativeTransaction[];
  /** Its EVM transactions, decoded and their senders recovered. */
  readonly transactions: readonly PooledTransaction[];
}

/** A replicated block that does not come out here as it did on its producer. */
export class ReplicaMismatch extends Error {
  override readonly name = 'ReplicaMismatch';

  constructor(
    readonly height: number,
    detail: string,
  ) {
    super(`block ${height} from the producer does not replicate: ${detail}`);
  }
}

/** What one block is built from: the head it goes on, its header's own fields and its candidates. */
interface BlockPlan {
  readonly parent: BlockRecord;
  readonly timeMs: bigint;
  readonly proposer: PrefixedHexString;
  readonly nativeCandidates: readonly NativeTransaction[];
  readonly candidates: readonly PooledTransaction[];
  /** When the block began, and when its candidates were chosen (the debug line's phases). */
  readonly started: number;
  readonly selectedAt: number;
  /** Refuses the block before it is written (a follower's comparison with the producer's). */
  readonly check?: (committed: CommittedBlock, execution: Execution) => void;
  /**
   * Resolve once the block's write has started, not once it is written: the next block may
   * execute meanwhile ({@link BlockProducer.replicate}, {@link BlockProducer.#produceDue}).
   */
  readonly pipelined?: boolean;
  /** When the block is published (its receipts served, its events sent) if committed earlier. */
  readonly publishAt?: Due | undefined;
}

/** The transactions a block would take, chosen at `started`. */
interface Selection {
  readonly started: number;
  readonly candidates: readonly PooledTransaction[];
  readonly nativeCandidates: readonly NativeTransaction[];
}

/** What a selection's gas limits add up to: how much a block of it may take. */
function gasLimitsOf({ candidates, nativeCandidates }: Selection): number {
  let gasLimits = 0;
  for (const { gasLimit } of nativeCandidates) gasLimits += Number(gasLimit);
  for (const { tx } of candidates) gasLimits += Number(tx.gasLimit);
  return gasLimits;
}

/** A native transaction a block delivered, with its result. */
interface DeliveredNative {
  readonly tx: NativeTransaction;
  readonly result: Delivered;
}

/** What executing one transaction left behind. */
interface Executed {
  readonly raw: Uint8Array;
  readonly nativeHash: Uint8Array;
  readonly receipt: ReceiptRecord;
  readonly tip: bigint;
  /** What the block's results commitment covers. */
  readonly result: ReceiptResult;
}

/** What executing a block's candidates left behind. */
interface Execution {
  readonly natives: DeliveredNative[];
  /** Hashes of native transactions that failed their checks when delivered. */
  readonly droppedNative: PrefixedHexString[];
  /** Block gas the native transactions take (their gas limits, as Tendermint counts them). */
  nativeGas: bigint;
  readonly executed: Executed[];
  /** What the included EVM transactions' gas limits add up to. */
  evmGasLimits: bigint;
  /** Hashes of transactions that failed their checks when run. */
  readonly dropped: PrefixedHexString[];
  /** Each included sender's nonce after the block. */
  readonly nextNonces: Map<PrefixedHexString, bigint>;
  gasUsed: bigint;
  readonly bloom: Bloom;
  /** Where the execution's time went, in ms: the block's debug line reports it. */
  readonly timings: { prefetchMs: number; transactionsMs: number; flushMs: number };
}

/**
 * A transaction's receipt record; `firstLogIndex` continues the block's log numbering. Its logs
 * are made in turns of the event loop: a 60M-gas transaction may emit 140,000 of them, and making
 * their hex held the thread for about 100 ms.
 */
async function receiptOf(
  pooled: PooledTransaction,
  result: TransactionResult,
  place: { index: number; cumulativeGasUsed: bigint; firstLogIndex: number; baseFee: bigint },
  turns: Turns | undefined,
): Promise<ReceiptRecord> {
  const logs: LogRecord[] = [];
  // A call frame's logs share their emitter's array.
  let emitter: { readonly bytes: Uint8Array; readonly hex: PrefixedHexString } | undefined;
  for (const [offset, [address, topics, data]] of result.logs.entries()) {
    if (emitter?.bytes !== address) emitter = { bytes: address, hex: bytesToHex(address) };
    logs.push({
      address: emitter.hex,
      topics: topics.map((topic) => bytesToHex(topic)),
      data: bytesToHex(data),
      logIndex: place.firstLogIndex + offset,
      transactionIndex: place.index,
      transactionHash: pooled.hash,
    });
    const turn = turns?.pause();
    if (turn !== undefined) await turn;
  }
  return {
    transactionHash: pooled.hash,
    transactionIndex: place.index,
    type: toQuantity(pooled.tx.type),
    from: pooled.sender,
    to: pooled.tx.to?.toString() ?? null,
    contractAddress: result.createdAddress?.toString() ?? null,
    status: result.error === undefined ? 1 : 0,
    cumulativeGasUsed: toQuantity(place.cumulativeGasUsed),
    gasUsed: toQuantity(result.gasUsed),
    effectiveGasPrice: toQuantity(place.baseFee + effectiveTip(pooled.tx, place.baseFee)),
    logsBloom: result.logs.length === 0 ? EMPTY_BLOOM : bytesToHex(result.bloom.bitvector),
    logs,
    // Stored in geth's words, which eth_getVMError and the trace methods serve.
    vmError: gethVmError(result.error ?? ''),
  };
}

/**
 * Produces a block every `block_time` (or on demand when it is 0): takes ready transactions by
 * effective tip, executes them with the EVM (Prague), pays every fee to the fee collector,
 * commits the block atomically and publishes it. Blocks are final when committed.
 */
export class BlockProducer {
  #timer: NodeJS.Timeout | undefined;
  #producing: Promise<void> = Promise.resolve();
  #stopped = true;
  /** On demand: whether blocks are being produced now, and whether a transaction arrived since the last began. */
  #running = false;
  #arrivedSince = false;
  #stopArrivals: (() => void) | undefined;
  /** Ends the producer's current wait, before a block's start or its publication (stopping does). */
  #wakeEarly: (() => void) | undefined;
  readonly #durations: BlockDurations;
  /**
   * The last pipelined block, and when it is written and published (a `performance.now()` time):
   * while it is being written, the next one may execute on its state.
   */
  #inFlight: { readonly block: BlockRecord; readonly written: Promise<number> } | undefined;
  /** Why blocks are not being produced, from the first failure until a block is written again. */
  #failure: ProductionFailure | undefined;

  private constructor(
    private readonly chain: Chain,
    private readonly vm: VM,
    private readonly live: WorldState,
    private readonly settings: ProducerSettings,
    private readonly logger: Logger,
    private readonly blockOptions = fastBlockOptions(chain.common),
    private readonly nativeRules: NativeRules = { ...settings.nativeRules, denoms: chain.denoms },
  ) {
    this.#durations = new BlockDurations(Number(chain.head().gasLimit), FIRST_FULL_BLOCK_MS);
  }

  static async create(chain: Chain, settings: ProducerSettings, logger: Logger): Promise<BlockProducer> {
    const live = stateManagerAt(chain.nodes, chain.common, hexToBytes(chain.head().stateRoot), PRODUCER_STATE_CACHES);
    const vm = await createBlockVM(chain, live, new NativeEffects());
    // One budget of event-loop turns for all a block does: reads, transactions, long call frames, flush, write.
    live.turns = vm.evm.turns;
    return new BlockProducer(chain, vm, live, settings, logger);
  }

  start(): void {
    this.#stopped = false;
    if (this.settings.blockTimeMs > 0) return this.#schedule(performance.now() + this.settings.blockTimeMs);
    this.#stopArrivals = this.chain.events.onArrival(() => this.#onDemand());
    // Transactions a previous run left in the pools.
    this.#onDemand();
  }

  /** Stops producing; resolves once a block being produced is committed. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#wakeEarly?.();
    this.#stopArrivals?.();
    await this.#producing;
    await this.#inFlight?.written.catch(() => undefined);
  }

  /**
   * On demand: a block starts on the next turn of the event loop after a transaction arrives, so
   * that those sent together share it, and blocks follow one another while transactions are
   * ready (those that arrived during a block, and those a full block left).
   */
  #onDemand(): void {
    this.#arrivedSince = true;
    if (this.#running || this.#stopped) return;
    this.#running = true;
    this.#producing = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      try {
        while (!this.#stopped) {
          this.#arrivedSince = false;
          const block = await this.#produceLogged();
          if (block === undefined && !this.#arrivedSince) break;
        }
      } finally {
        this.#running = false;
      }
    });
  }

  /** One block and what is due after it; a failure is logged and ends the run (the next arrival starts another). */
  async #produceLogged(): Promise<CommittedBlock | undefined> {
    try {
      const block = await this.produce();
      await this.chain.pruneIfDue();
      return block;
    } catch (error) {
      this.#failed(error);
      this.logger.error({ err: error }, 'block production failed; retrying at the next transaction');
      return undefined;
    }
  }

  /**
   * Why blocks are not being produced, if the last attempt failed and no block was written since:
   * a store that refuses writes (no descriptor left for its next log, a full disk) fails every
   * block until the node restarts.
   */
  failure(): ProductionFailure | undefined {
    return this.#failure;
  }

  #failed(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.#failure = { message, since: this.#failure?.since ?? new Date() };
  }

  /**
   * Blocks come out `block_time` apart: each starts as long before it is due as it is expected to
   * take, with a margin ({@link BlockDurations}), or, when the waiting transactions fill it, as
   * soon as the block before it is built and within a full block's lead of its own time; each is
   * published (its receipts served, its events sent) when due. A full block after an empty one
   * then stretches no interval. Blocks are due on a grid `block_time` apart; one published more
   * than a quarter of it late moves the grid with it, so that blocks do not follow one another
   * closely to catch up.
   */
  #schedule(due: Due): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#producing = this.#produceDue(due)
        .then(async ({ next }) => {
          await this.#pruneBetweenBlocks();
          this.#schedule(next);
        })
        .catch(async (error: unknown) => {
          this.#failed(error);
          this.logger.error({ err: error }, 'block production failed; retrying at the next tick');
          await this.#resetToHead();
          this.#schedule(performance.now() + this.settings.blockTimeMs);
        });
    });
  }

  /**
   * Produces the block due at `due` (a `performance.now()` time, or its promise while the block
   * before is not yet published); resolves, once the block is built and its write queued, to when
   * the next one is due. Candidates that fill the block start it at once, as waiting longer would
   * add nothing to it, even while the block before it waits for its time, from the lead of a full
   * block before that time on: it then executes on that block's state, its write follows that
   * block's publication, and the lead adds to its margin, so that a slow write or a slow block is
   * taken up rather than stretching an interval. Otherwise it waits for that publication, then
   * until as long before `due` as its candidates need, selecting again every {@link RESELECT_MS}
   * from the lead of a full block on, so that what arrives meanwhile goes in too. Selecting only
   * at the end of one wait, sized for what was there at its start, let a pool filling fast hand
   * the block more than it could run by its due time.
   *
   * A block still unwritten at its due time (a full block of a large gas limit takes longer than
   * the block time) is published as soon as it is written, and the grid moves with it when that
   * is late ({@link #dueAfter}).
   */
  async #produceDue(due: Due): Promise<{ readonly next: Due }> {
    let selection = await this.#select();
    if (typeof due !== 'number' && !this.#durations.fills(gasLimitsOf(selection))) {
      due = await due;
      selection = await this.#select();
    }
    if (typeof due === 'number') {
      for (;;) {
        const gasLimits = gasLimitsOf(selection);
        if (this.#durations.fills(gasLimits)) break;
        const early = due - performance.now() - this.#durations.lead(gasLimits);
        if (early < 1) break;
        const untilFullLead = due - performance.now() - this.#durations.fullLead();
        await this.#sleep(Math.min(early, Math.max(untilFullLead, RESELECT_MS)));
        if (this.#stopped) return { next: due };
        selection = await this.#select();
      }
      if (!this.#wanted(selection)) return { next: due + this.settings.blockTimeMs };
    }
    await this.#buildSelection(selection, due, true);
    const next = this.#dueAfter(due, this.#inFlight!.written);
    // Its write having failed, the next block's build or the schedule's catch throws it.
    next.catch(() => undefined);
    // Settled by now: a block's build returns once the block before it is published.
    const untilNextMayStart = (await due) - this.#durations.fullLead() - performance.now();
    if (untilNextMayStart >= 1) await this.#sleep(untilNextMayStart);
    return { next };
  }

  /** When the block after the one due at `due` is due, given when that one is `published`. */
  async #dueAfter(due: Due, published: Promise<number>): Promise<number> {
    const [dueAt, publishedAt] = await Promise.all([due, published]);
    const late = publishedAt - dueAt > this.settings.blockTimeMs / 4;
    return (late ? publishedAt : dueAt) + this.settings.blockTimeMs;
  }

  /** Prunes old state when due, between blocks: once no block is being written, as pruning deletes nodes from the store. */
  async #pruneBetweenBlocks(): Promise<void> {
    if (!this.chain.pruneDue()) return;
    await this.written();
    await this.chain.pruneIfDue();
  }

  /** Waits `ms`, or less when the producer stops. */
  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#timer = setTimeout(resolve, ms);
      this.#wakeEarly = resolve;
    });
  }

  /** Produces and commits one block; resolves to it, or undefined when an empty block was not wanted. */
  async produce(): Promise<CommittedBlock | undefined> {
    const production = this.settings.blockTimeMs === 0 ? this.chain.beginProduction() : undefined;
    try {
      const selection = await this.#select();
      if (!this.#wanted(selection)) return undefined;
      production?.selected(selection.candidates.map(({ hash }) => hash));
      return await this.#buildSelection(selection, undefined, false);
    } finally {
      production?.end();
    }
  }

  /**
   * The pools' transactions a block on the last one built would take now. Those of a block still
   * being written are in the pools until it is published: its EVM transactions' nonces are used in
   * the state read, and its native transactions are left out by hash.
   */
  async #select(): Promise<Selection> {
    const started = performance.now();
    const parent = this.lastBuilt();
    const candidates = this.chain.pool.ready(await this.#senderNonces(), baseFeeAfter(parent));
    const pooledNatives = this.chain.nativePool.transactions();
    // Once a block is published its native transactions have left the pool: nothing to filter.
    if (parent.height === this.chain.head().height) return { started, candidates, nativeCandidates: pooledNatives };
    const inParent = new Set(parent.nativeTransactions);
    const nativeCandidates = pooledNatives.filter(({ hash }) => !inParent.has(bytesToHex(hash)));
    return { started, candidates, nativeCandidates };
  }

  /** Whether a block is made of `selection`: an empty one only at a block time, when empty blocks are wanted. */
  #wanted(selection: Selection): boolean {
    const wantsEmpty = this.settings.createEmptyBlocks && this.settings.blockTimeMs > 0;
    return wantsEmpty || selection.candidates.length > 0 || selection.nativeCandidates.length > 0;
  }

  #buildSelection(
    { started, candidates, nativeCandidates }: Selection,
    publishAt: Due | undefined,
    pipelined: boolean,
  ): Promise<CommittedBlock> {
    const parent = this.lastBuilt();
    return this.#build({
      parent,
      timeMs: BigInt(Math.max(Date.now(), Number(BigInt(parent.header.timeMs)) + 1)),
      proposer: this.chain.proposer,
      nativeCandidates,
      candidates,
      started,
      selectedAt: performance.now(),
      publishAt,
      pipelined,
    });
  }

  /**
   * Executes and commits a block another node produced (a follower's), with its time, proposer
   * and transactions, and commits it only if it comes out as that node's: every transaction
   * included and the same block hash, which covers the parent's state root, the transactions
   * and the header. Anything else throws a {@link ReplicaMismatch} and stores nothing.
   *
   * Blocks are pipelined: the block goes on the last one replicated, and this resolves once its
   * write has started, so that the next block executes while it is written. Each write starts
   * once the one before is written and published, so the head still moves block by block and a
   * crash keeps a prefix of them; a block whose write fails takes the ones built on it with it.
   * {@link written} waits for the last write.
   */
  async replicate(upstream: UpstreamBlock): Promise<CommittedBlock> {
    const started = performance.now();
    const parent = this.lastBuilt();
    if (upstream.height !== parent.height + 1)
      throw new ReplicaMismatch(upstream.height, `it does not follow the head, block ${parent.height}`);
    return this.#build({
      parent,
      timeMs: upstream.timeMs,
      proposer: upstream.proposer,
      nativeCandidates: upstream.natives,
      candidates: upstream.transactions,
      started,
      selectedAt: started,
      pipelined: true,
      check: (committed, execution) => {
        const left = execution.dropped.length + execution.droppedNative.length;
        if (left > 0) throw new ReplicaMismatch(upstream.height, `${left} of its transactions failed here`);
        if (committed.block.hash !== upstream.hash)
          throw new ReplicaMismatch(upstream.height, `its hash here is ${committed.block.hash}, not ${upstream.hash}`);
      },
    });
  }

  /** The last block built: the head, or the block being written after it. */
  lastBuilt(): BlockRecord {
    return this.#inFlight?.block ?? this.chain.head();
  }

  /** Resolves once the last pipelined block is written and published; rejects if its write failed. */
  async written(): Promise<void> {
    try {
      await this.#inFlight?.written;
    } catch (error) {
      await this.#resetToHead();
      throw error;
    }
  }

  /**
   * Forgets a block that is not committed, and any built on it: the next block starts from the
   * head's state. A write in flight decides the head, so it is waited for first.
   */
  async #resetToHead(): Promise<void> {
    this.chain.nodes.discardPending();
    await this.#inFlight?.written.catch(() => undefined);
    this.#inFlight = undefined;
    await this.live.setStateRoot(hexToBytes(this.chain.head().stateRoot));
  }

  /** Executes `plan`'s candidates on `plan.parent`, then builds, checks and commits the block. */
  async #build(plan: BlockPlan): Promise<CommittedBlock> {
    const built = this.chain.beginBuilding();
    try {
      return await this.#buildMarked(plan, built);
    } finally {
      built();
    }
  }

  /** {@link #build}, which calls `built` once the block's records are made (its write may still wait). */
  async #buildMarked(plan: BlockPlan, built: () => void): Promise<CommittedBlock> {
    const { parent, timeMs, nativeCandidates, candidates, started, selectedAt } = plan;
    // Executed on the state of a block still being written.
    const pipelined = parent.height > this.chain.head().height;
    // The gas limit is the chain's, set by its genesis and carried from block to block.
    const gasLimit = BigInt(parent.gasLimit);
    const baseFee = baseFeeAfter(parent);
    const height = parent.height + 1;
    const prevRandao = keccak256(uint64BE(timeMs));
    const evmBlock = executionBlock(
      { number: BigInt(height), timestamp: timeMs / 1000n, gasLimit, baseFee, prevRandao },
      this.blockOptions,
    );
    // Anything failing from execution to the write leaves nothing stored: the state resets below.
    let execution: Execution;
    let committed: CommittedBlock;
    let executionEnd: number;
    let stateRootEnd: number;
    let recordsEnd: number;
    try {
      execution = await this.#execute(nativeCandidates, candidates, evmBlock, baseFee, gasLimit, parent.hash);
      executionEnd = performance.now();
      const stateRoot = await this.live.getStateRoot();
      stateRootEnd = performance.now();
      // The records of a 60M-gas block take milliseconds of their own (its receipts root).
      await this.vm.evm.turns?.pause();

      const { executed, natives } = execution;
      const nativeHashes = executed.map(({ nativeHash }) => nativeHash);
      const { stored, synthetic, views } = nativeRecordsOf(natives, height);
      const header: ConsensusHeader = {
        chainId: this.chain.chainId,
        height: BigInt(height),
        timeMs,
        parentHash: parent.hash,
        dataHash: dataHashOf([...natives.map(({ tx }) => tx.hash), ...nativeHashes]),
        appHash: parent.stateRoot,
        proposer: plan.proposer,
      };
      committed = {
        block: blockRecordOf(header, {
          gasLimit,
          gasUsed: execution.gasUsed,
          baseFeePerGas: baseFee,
          prevRandao: bytesToHex(prevRandao),
          stateRoot: bytesToHex(stateRoot),
          logsBloom: bytesToHex(execution.bloom.bitvector),
          receiptsRoot: receiptsRootOf(executed.map(({ result }) => result)),
          size: blockSizeOf(executed.map(({ raw }) => raw)),
          transactions: executed.map(({ receipt }) => receipt.transactionHash),
          // Sorted by tip: the input of fee-history reward percentiles.
          tips: [...executed]
            .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0))
            .map(({ receipt, tip }) => [receipt.gasUsed, toQuantity(tip)] as const),
          nativeTransactions: stored.map(({ hash }) => hash),
          synthetic: views,
        }),
        receipts: executed.map(({ receipt }) => receipt),
        rawTransactions: executed.map(({ raw }) => raw),
        nativeHashes,
        nativeTransactions: stored,
        syntheticTransactions: synthetic,
      };
      recordsEnd = performance.now();
      built();
      plan.check?.(committed, execution);
      // A pipelined block goes on one not yet published (waiting for its time, or being written):
      // its own write comes after that publication.
      await this.#inFlight?.written;
    } catch (error) {
      // Nothing of the block is stored: forget its state and start the next one from the head's.
      await this.#resetToHead();
      throw error;
    }
    const timings = { started, selectedAt, executionEnd, stateRootEnd, recordsEnd, pipelined };
    const written = this.#commit(committed, execution, timings, plan.publishAt);
    if (plan.pipelined !== true) {
      try {
        await written;
      } catch (error) {
        await this.#resetToHead();
        throw error;
      }
      return committed;
    }
    // Awaited by the next block or by written(); until then its failure is no unhandled rejection.
    written.catch(() => undefined);
    this.#inFlight = { block: committed.block, written };
    return committed;
  }

  /**
   * Writes the block and publishes it (when due, with `publishAt`): its receipts served, its
   * events sent, the head moved. Before the write, nothing of the block was published. Resolves
   * to when it was published.
   */
  async #commit(
    committed: CommittedBlock,
    execution: Execution,
    timings: {
      started: number;
      selectedAt: number;
      executionEnd: number;
      stateRootEnd: number;
      recordsEnd: number;
      pipelined: boolean;
    },
    publishAt: Due | undefined,
  ): Promise<number> {
    const writeStart = performance.now();
    try {
      await this.chain.store.commit(committed, this.chain.nodes, this.vm.evm.turns);
    } catch (error) {
      this.#failed(error);
      throw error;
    }
    this.#failure = undefined;
    const committedAt = performance.now();
    // The block's own time: a pipelined block's wait for the block before it to be written is not.
    const durationMs = timings.recordsEnd - timings.started + (committedAt - writeStart);
    const { nativeGas } = execution;
    this.#durations.observe(
      Number(nativeGas + execution.evmGasLimits),
      Number(nativeGas + execution.gasUsed),
      durationMs,
    );
    // A block committed before its time is published when due: blocks come out at a steady cadence.
    const heldMs = publishAt === undefined ? 0 : await this.#holdUntil(await publishAt);
    this.chain.applyCommitted(committed, execution.nextNonces, execution.dropped, execution.droppedNative);
    const publishedAt = performance.now();
    this.logger.debug(
      {
        height: committed.block.height,
        transactions: committed.receipts.length,
        gasUsed: Number(execution.gasUsed),
        durationMs,
        heldMs,
        pipelined: timings.pipelined,
        // Where the time went: docs/performance.md reads these. A pipelined block waits, after
        // its records, for the block before it to be written (waitMs).
        selectMs: timings.selectedAt - timings.started,
        ...execution.timings,
        stateRootMs: timings.stateRootEnd - timings.executionEnd,
        recordsMs: timings.recordsEnd - timings.stateRootEnd,
        waitMs: writeStart - timings.recordsEnd,
        writeMs: committedAt - writeStart,
      },
      'block committed',
    );
    return publishedAt;
  }

  /** Waits until `time` (a `performance.now()` time), or less when the producer stops; resolves to the ms waited. */
  async #holdUntil(time: number): Promise<number> {
    const start = performance.now();
    if (time - start < 1) return 0;
    await this.#sleep(time - start);
    return performance.now() - start;
  }

  /**
   * Stores the parent's hash in the history contract (EIP-2935), then runs the native transactions
   * in arrival order and the EVM candidates in order, within one state checkpoint (one trie commit
   * per block). A transaction that fails its checks now, or whose execution throws, is dropped
   * with no receipt; an EVM sender's later transactions wait in the pool for the next block. A
   * transaction whose gas limit exceeds what is left of the block is skipped, never ends it.
   */
  async #execute(
    nativeCandidates: readonly NativeTransaction[],
    candidates: readonly PooledTransaction[],
    evmBlock: Block,
    baseFee: bigint,
    gasLimit: bigint,
    parentHash: PrefixedHexString,
  ): Promise<Execution> {
    const execution: Execution = {
      natives: [],
      droppedNative: [],
      nativeGas: 0n,
      executed: [],
      evmGasLimits: 0n,
      dropped: [],
      nextNonces: new Map(),
      gasUsed: 0n,
      bloom: new Bloom(undefined, this.chain.common),
      timings: { prefetchMs: 0, transactionsMs: 0, flushMs: 0 },
    };
    const halted = new Set<PrefixedHexString>();
    const haltedSigners = new Set<PrefixedHexString>();
    let logIndex = 0;
    // The senders' accounts are cached already (#senderNonces read them); of the recipients, those
    // of as many candidates as the block could hold; and the history slot the block writes.
    const includable = candidates.slice(0, Number(gasLimit / MIN_TX_GAS));
    let phaseStart = performance.now();
    await Promise.all([
      readAccounts(
        this.live,
        includable.flatMap(({ tx }) => tx.to ?? []),
        this.vm.evm.turns,
      ),
      readParentHashSlot(this.vm, evmBlock.header.number),
    ]);
    execution.timings.prefetchMs = performance.now() - phaseStart;
    phaseStart = performance.now();
    await this.live.checkpoint();
    const blockCheckpoints = this.live.openCheckpoints;
    try {
      await storeParentHash(this.vm, evmBlock.header.number, hexToBytes(parentHash));
      for (const tx of nativeCandidates) {
        const signer = bytesToHex(tx.signer.bytes);
        if (haltedSigners.has(signer)) continue;
        // One that does not fit waits for the next block, and so do its signer's later ones (their
        // sequences follow it); the others still fill this block.
        if (execution.nativeGas + tx.gasLimit > gasLimit) {
          haltedSigners.add(signer);
          continue;
        }
        const result = await deliver(this.live, tx, this.nativeRules);
        if (result === undefined) execution.droppedNative.push(bytesToHex(tx.hash));
        else {
          execution.natives.push({ tx, result });
          execution.nativeGas += tx.gasLimit;
        }
      }
      // A full block's transactions run from cached state with nothing to wait for, and would
      // hold the event loop for their whole run (over 100 ms on 60M-gas blocks): admissions and
      // calls get turns between them, and the sender-recovery thread keeps working meanwhile. The
      // VM's own turns, which its long call frames ask too, so that one budget covers both.
      for (const pooled of candidates) {
        await this.vm.evm.turns?.pause();
        // No EVM transaction takes less gas than a plain transfer.
        if (gasLimit - execution.nativeGas - execution.gasUsed < MIN_TX_GAS) break;
        if (halted.has(pooled.sender)) continue;
        // As for native ones: skipped with its sender's later nonces, not an end to the block.
        if (execution.nativeGas + execution.gasUsed + pooled.tx.gasLimit > gasLimit) {
          halted.add(pooled.sender);
          continue;
        }
        let result: TransactionResult;
        try {
          result = await runBlockTransaction(this.vm, pooled.tx, evmBlock, execution.gasUsed, false);
        } catch (error) {
          // As geth leaves out a transaction it cannot apply: no receipt, nothing of it in the block.
          await this.#revertThrownExecution(blockCheckpoints);
          this.logger.warn({ err: error, tx: pooled.hash }, 'transaction dropped: its execution threw');
          this.chain.pool.remove(pooled);
          execution.dropped.push(pooled.hash);
          halted.add(pooled.sender);
          continue;
        }
        execution.gasUsed += result.gasUsed;
        execution.evmGasLimits += pooled.tx.gasLimit;
        execution.nextNonces.set(pooled.sender, pooled.nonce + 1n);
        this.chain.recentSenders.remember(pooled.hash, pooled.tx.getSenderPublicKey());
        if (result.logs.length > 0) execution.bloom.or(result.bloom);
        const place = {
          index: execution.executed.length,
          cumulativeGasUsed: execution.gasUsed,
          firstLogIndex: logIndex,
          baseFee,
        };
        const receipt = await receiptOf(pooled, result, place, this.vm.evm.turns);
        logIndex += receipt.logs.length;
        execution.executed.push({
          raw: pooled.raw,
          nativeHash: pooled.nativeHash,
          receipt,
          tip: effectiveTip(pooled.tx, baseFee),
          result: { status: receipt.status, gasUsed: result.gasUsed, bloom: result.bloom.bitvector },
        });
      }
      execution.timings.transactionsMs = performance.now() - phaseStart;
      phaseStart = performance.now();
      await this.live.commit();
      execution.timings.flushMs = performance.now() - phaseStart;
    } catch (error) {
      // Whatever threw, and whatever it left open, nothing of the block stays.
      while (this.live.openCheckpoints > 0) await this.live.revert();
      throw error;
    }
    return execution;
  }

  /**
   * Undoes a transaction whose execution threw: ethereumjs reverts only its outermost checkpoint,
   * so the frames it was in leave theirs open (and their transient storage), and the block's
   * commit would keep the transaction's writes or fail. Reverted down to the block's checkpoint,
   * the state is as if the transaction had not run.
   */
  async #revertThrownExecution(blockCheckpoints: number): Promise<void> {
    while (this.live.openCheckpoints > blockCheckpoints) await this.live.revert();
    // The VM's EVM is ethereumjs' own (createVM builds it); its interface type leaves this out.
    (this.vm.evm as EVM).transientStorage.clear();
  }

  /** State nonces of every sender with pooled transactions. */
  async #senderNonces(): Promise<Map<PrefixedHexString, bigint>> {
    const senders = [...this.chain.pool.senders()].map((sender) => new Address(hexToBytes(sender)));
    const accounts = await readAccounts(this.live, senders, this.vm.evm.turns);
    return new Map([...accounts].map(([sender, account]) => [sender, account?.nonce ?? 0n]));
  }
}

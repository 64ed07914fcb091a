import type { Block, BlockOptions } from '@ethereumjs/block';
import { isEOACode7702Tx, type TxOptions, type TypedTransaction } from '@ethereumjs/tx';
import { hexToBytes, type DB, type PrefixedHexString } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type {
  EvmTracer,
  ReplayedTransaction,
  ReplayOptions,
  Replayer,
  TraceOutcome,
  TraceSubject,
} from '../../api/replayer.js';
import { InvalidInputError, ResourceNotFoundError } from '../../errors/rpc-error.js';
import type { BlockOverrides, CallRequest, StateOverrides } from '../../rpc/call-codecs.js';
import type { BlockRef } from '../../rpc/block-codecs.js';
import { createBlockVM, executionBlock, runBlockTransaction } from '../block-execution.js';
import { storeParentHash } from '../evm/block-history.js';
import { EventLoopTurns } from '../../rpc/event-loop-turns.js';
import type { Chain } from '../chain.js';
import { fastBlockOptions } from '../evm/evm-common.js';
import { attachTracer, traceOutcomeOf } from '../evm/evm-tracing.js';
import { TracedOpcodes } from '../evm/traced-opcodes.js';
import { NativeEffects } from '../native/native-effects.js';
import { deliver, type NativeRules } from '../native/native-executor.js';
import { decodeNativeTransaction } from '../native/native-transaction.js';
import { effectiveTip } from '../pool/pooled-transaction.js';
import { decodeSignedTransaction, fastTxOptions } from '../pool/raw-transaction.js';
import type { BlockRecord } from '../records.js';
import type { ChainSimulator } from '../simulation/simulator.js';
import { TrieReads } from '../state/trie-reads.js';
import { stateManagerAt, type StateCacheSizes, type WorldState } from '../state/world-state.js';

/**
 * A replay reads a block's worth of accounts and slots once or twice: a small node cache
 * suffices. Its writes live only in the entry caches (the replay is never flushed), so those keep
 * all: a block's gas bounds them.
 */
const REPLAY_CACHES: StateCacheSizes = { trieNodes: 2_000, entries: 'all' };

/** Trie reads every replay shares (the same blocks are traced again and again), in bytes. */
const TRIE_READS_BYTES = 32 * 1024 * 1024;

/** Replay positions kept for the next trace of the same blocks. */
const KEPT_POSITIONS = 4;

/**
 * A replay of one block, stopped before its EVM transaction `next`: its own state (inside a
 * checkpoint never committed) and VM, and what the block's transactions before `next` used.
 */
class ReplayPosition {
  next = 0;
  /** The transaction at `next` as decoded, sender recovered, when a replay traced it already. */
  nextTx: TypedTransaction | undefined;
  gasUsed = 0n;
  logIndex = 0;
  /** The signal of the replay running on it: its precompile computations are abandoned when it fires. */
  signal: AbortSignal | undefined;
  readonly baseFee: bigint;

  constructor(
    readonly height: number,
    readonly state: WorldState,
    readonly vm: VM,
    readonly nativeEffects: NativeEffects,
    readonly tracedOpcodes: TracedOpcodes,
    readonly evmBlock: Block,
  ) {
    this.baseFee = evmBlock.header.baseFeePerGas ?? 0n;
  }

  /** Moves past the transaction at `next`, which used `gas` and emitted `logs` logs. */
  advance(gas: bigint, logs: number): void {
    this.next++;
    this.nextTx = undefined;
    this.gasUsed += gas;
    this.logIndex += logs;
  }
}

/**
 * The last few replay positions, so that tracing a transaction again (with another tracer, as
 * debuggers and explorers do) or the next ones of its block replays only what lies between.
 * Blocks are final, so a position never goes stale. A position is taken out while a replay uses
 * it: two traces never share one.
 */
class ReplayPositions {
  readonly #kept: ReplayPosition[] = [];

  /** The kept position of block `height` furthest along but not past transaction `index`, removed. */
  take(height: number, index: number): ReplayPosition | undefined {
    let best = -1;
    this.#kept.forEach((position, at) => {
      if (position.height === height && position.next <= index && (best < 0 || position.next > this.#kept[best]!.next))
        best = at;
    });
    return best < 0 ? undefined : this.#kept.splice(best, 1)[0];
  }

  keep(position: ReplayPosition): void {
    this.#kept.push(position);
    if (this.#kept.length > KEPT_POSITIONS) this.#kept.shift();
  }
}

type TracerFor = (subject: TraceSubject) => EvmTracer | undefined;

/**
 * Replays committed blocks for the `debug_trace*` methods: on a state of its own opened at the
 * parent's root (never the shared head state), the block's native transactions, then its EVM
 * transactions as the block producer ran them (block-execution.ts), with a tracer attached to
 * the ones asked for. Nothing a replay writes reaches the node's trie store: the whole replay
 * stays inside one state checkpoint that is never committed. Calls are traced through the
 * {@link ChainSimulator}, as `eth_call` runs them.
 */
export class BlockReplayer implements Replayer {
  readonly #blockOptions: BlockOptions;
  readonly #txOptions: TxOptions;
  readonly #nativeRules: NativeRules;
  readonly #positions = new ReplayPositions();
  readonly #trieReads = new TrieReads(TRIE_READS_BYTES);
  readonly #nodes: DB<string | Uint8Array, string | Uint8Array>;

  constructor(
    private readonly chain: Chain,
    private readonly simulator: ChainSimulator,
    /** The rules the block producer delivers native transactions with (`[native] chain_id`, `min_gas_price`). */
    nativeRules: Omit<NativeRules, 'denoms'>,
  ) {
    this.#blockOptions = fastBlockOptions(chain.common);
    this.#txOptions = fastTxOptions(chain.common);
    this.#nativeRules = { ...nativeRules, denoms: chain.denoms };
    this.#nodes = chain.nodes.replayView();
  }

  async replayBlock(height: number, tracerFor: TracerFor, options: ReplayOptions = {}): Promise<ReplayedTransaction[]> {
    return this.#replay(height, tracerFor, options);
  }

  async replayTransaction(
    hash: PrefixedHexString,
    tracerFor: TracerFor,
    options: ReplayOptions = {},
  ): Promise<ReplayedTransaction> {
    const location = await this.chain.store.locationOf(hash);
    // geth's errTxNotFound.
    if (location === undefined) throw new InvalidInputError('transaction not found');
    const replayed = await this.#replay(location.height, tracerFor, options, location.index);
    return replayed.at(-1)!;
  }

  traceCall(
    request: CallRequest,
    ref: BlockRef,
    tracerFor: TracerFor,
    overrides?: { readonly state?: StateOverrides; readonly block?: BlockOverrides },
    options: ReplayOptions = {},
  ): Promise<TraceOutcome> {
    return this.simulator.trace(request, ref, tracerFor, overrides, options.signal);
  }

  /**
   * Replays block `height` up to its EVM transaction `last` (all of them by default); only `last`
   * is traced when it is given, and the replay then resumes, when it can, from a position an
   * earlier one left ({@link ReplayPositions}). The transactions it ran, from where it resumed.
   */
  async #replay(
    height: number,
    tracerFor: TracerFor,
    { signal, background }: ReplayOptions,
    last?: number,
  ): Promise<ReplayedTransaction[]> {
    signal?.throwIfAborted();
    const block = await this.#blockToReplay(height);
    const parent = await this.chain.stateBlockAt(height - 1);
    const position = (last !== undefined && this.#positions.take(height, last)) || (await this.#open(block, parent));
    const { state, evmBlock } = position;
    position.signal = signal;
    const replayed: ReplayedTransaction[] = [];
    const count = last === undefined ? block.transactions.length : last + 1;
    const first = position.next;
    // A trace of the transaction a position stopped at already has it decoded.
    const fetchFrom = position.nextTx === undefined ? first : first + 1;
    const raws = fetchFrom < count ? await this.chain.store.rawTransactionsAt(height, fetchFrom, count) : [];
    // Transactions run without a tracer hold the event loop for their whole run: turns between them.
    const turns = new EventLoopTurns();
    for (let index = first; index < count; index++) {
      await turns.pause();
      if (background === true) await this.chain.notBuilding();
      signal?.throwIfAborted();
      const hash = block.transactions[index]!;
      const tx = index < fetchFrom ? position.nextTx! : this.#decode(raws[index - fetchFrom], height, index, hash);
      const tracer =
        last === undefined || index === last
          ? tracerFor({
              block,
              hash,
              index,
              firstLogIndex: position.logIndex,
              coinbase: evmBlock.header.coinbase.toString(),
              from: tx.getSenderAddress().toString(),
              to: tx.to?.toString(),
              value: tx.value,
              gasLimit: tx.gasLimit,
              gasPrice: position.baseFee + effectiveTip(tx, position.baseFee),
              input: tx.data,
              state,
              ...(isEOACode7702Tx(tx) ? { authorizationList: tx.authorizationList } : {}),
            })
          : undefined;
      // The traced transaction of a single-transaction replay is undone afterwards, so that the
      // position stays before it for the next trace of the block.
      const undone = index === last;
      if (undone) {
        await state.checkpoint();
        state.recordMisses();
      }
      position.nativeEffects.reset();
      const detach = tracer === undefined ? undefined : attachTracer(position, tracer, signal);
      let outcome: TraceOutcome;
      try {
        const result = await runBlockTransaction(position.vm, tx, evmBlock, position.gasUsed, tracer !== undefined);
        outcome = traceOutcomeOf(result);
        if (!undone) position.advance(result.gasUsed, result.logs.length);
      } catch (error) {
        // An abort inside the EVM comes out as the VM's failure: the signal's reason is the error.
        signal?.throwIfAborted();
        throw error;
      } finally {
        detach?.();
      }
      await tracer?.finish?.(outcome);
      if (undone) {
        await state.revert();
        // What the transaction read stays cached for the next trace of it.
        await state.rereadMisses();
        position.nextTx = tx;
      }
      // Listed, not spread: Node 20 adds properties after a spread slowly (docs/performance.md).
      const { gasUsed, returnValue, error, createdAddress } = outcome;
      replayed.push({ gasUsed, returnValue, error, createdAddress, hash, index });
    }
    // Only a replay that ended well leaves a position to resume from: a failed one may stop inside a transaction.
    if (last !== undefined) this.#positions.keep(position);
    return replayed;
  }

  /** Transaction `index` of block `height`, whose hash is `hash`; its sender is not recovered again when the node knows it. */
  #decode(raw: Uint8Array | undefined, height: number, index: number, hash: PrefixedHexString): TypedTransaction {
    if (raw === undefined) throw new Error(`block ${height} has no raw transaction ${index}`);
    const senderPublicKey = this.chain.recentSenders.publicKeyOf(hash);
    const recovered = senderPublicKey === undefined ? undefined : { senderPublicKey, hash: hexToBytes(hash) };
    return decodeSignedTransaction(raw, this.#txOptions, recovered);
  }

  /** A replay of `block` from its start: the parent's state, the parent hash stored, the native transactions run. */
  async #open(block: BlockRecord, parent: BlockRecord): Promise<ReplayPosition> {
    const { height } = block;
    const state = stateManagerAt(this.#nodes, this.chain.common, hexToBytes(parent.stateRoot), REPLAY_CACHES);
    state.trieReads = this.#trieReads;
    await state.checkpoint();
    const nativeEffects = new NativeEffects();
    const tracedOpcodes = new TracedOpcodes();
    const opened: { position?: ReplayPosition } = {};
    const vm = await createBlockVM(this.chain, state, nativeEffects, {
      tracedOpcodes,
      deadline: {
        at: () => Number.POSITIVE_INFINITY,
        exceeded: () => new Error('a replay has no deadline'),
        signal: () => opened.position?.signal,
      },
    });
    // As the producer began the block: the parent's hash into the history contract, then the native transactions.
    await storeParentHash(vm, BigInt(height), hexToBytes(block.header.parentHash));
    for (const hash of block.nativeTransactions) {
      const stored = await this.chain.store.nativeTransaction(hexToBytes(hash));
      if (stored === undefined) throw new Error(`block ${height} names a missing native transaction ${hash}`);
      const delivered = await deliver(state, decodeNativeTransaction(hexToBytes(stored.tx)), this.#nativeRules);
      if (delivered === undefined) throw new Error(`native transaction ${hash} of block ${height} fails on replay`);
    }
    const evmBlock = executionBlock(
      {
        number: BigInt(height),
        timestamp: BigInt(block.timestamp),
        gasLimit: BigInt(block.gasLimit),
        baseFee: BigInt(block.baseFeePerGas),
        prevRandao: hexToBytes(block.prevRandao),
      },
      this.#blockOptions,
    );
    opened.position = new ReplayPosition(height, state, vm, nativeEffects, tracedOpcodes, evmBlock);
    return opened.position;
  }

  /** Block `height`, when it can be replayed: not the genesis block, not above the head. */
  async #blockToReplay(height: number): Promise<BlockRecord> {
    if (height === 0) throw new InvalidInputError('genesis is not traceable');
    await this.chain.resolveHeight({ kind: 'number', number: BigInt(height) });
    const block = await this.chain.store.blockAt(height);
    if (block === undefined) throw new ResourceNotFoundError(`block ${height} not found`);
    return block;
  }
}

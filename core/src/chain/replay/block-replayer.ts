import type { BlockOptions } from '@ethereumjs/block';
import { createTxFromRLP, isEOACode7702Tx, type TxOptions } from '@ethereumjs/tx';
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
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
import { fastTxOptions } from '../pool/raw-transaction.js';
import type { BlockRecord } from '../records.js';
import type { ChainSimulator } from '../simulation/simulator.js';
import { stateManagerAt, type StateCacheSizes } from '../state/world-state.js';

/** A replay reads a block's worth of accounts and slots once or twice: small caches suffice. */
const REPLAY_CACHES: StateCacheSizes = { trieNodes: 2_000, entries: 2_000 };

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

  constructor(
    private readonly chain: Chain,
    private readonly simulator: ChainSimulator,
    /** The rules the block producer delivers native transactions with (`[native] chain_id`, `min_gas_price`). */
    nativeRules: Omit<NativeRules, 'denoms'>,
  ) {
    this.#blockOptions = fastBlockOptions(chain.common);
    this.#txOptions = fastTxOptions(chain.common);
    this.#nativeRules = { ...nativeRules, denoms: chain.denoms };
  }

  async replayBlock(height: number, tracerFor: TracerFor, options: ReplayOptions = {}): Promise<ReplayedTransaction[]> {
    return this.#replay(height, tracerFor, options.signal);
  }

  async replayTransaction(
    hash: PrefixedHexString,
    tracerFor: TracerFor,
    options: ReplayOptions = {},
  ): Promise<ReplayedTransaction> {
    const location = await this.chain.store.locationOf(hash);
    // geth's errTxNotFound.
    if (location === undefined) throw new InvalidInputError('transaction not found');
    const replayed = await this.#replay(location.height, tracerFor, options.signal, location.index);
    return replayed[location.index]!;
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
   * is traced when it is given.
   */
  async #replay(
    height: number,
    tracerFor: TracerFor,
    signal: AbortSignal | undefined,
    last?: number,
  ): Promise<ReplayedTransaction[]> {
    signal?.throwIfAborted();
    const block = await this.#blockToReplay(height);
    const parent = await this.chain.stateBlockAt(height - 1);
    const state = stateManagerAt(this.chain.nodes, this.chain.common, hexToBytes(parent.stateRoot), REPLAY_CACHES);
    await state.checkpoint();
    const nativeEffects = new NativeEffects();
    const tracedOpcodes = new TracedOpcodes();
    const vm = await createBlockVM(this.chain, state, nativeEffects, tracedOpcodes);
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
    const baseFee = BigInt(block.baseFeePerGas);
    const replayed: ReplayedTransaction[] = [];
    let gasUsed = 0n;
    let logIndex = 0;
    const count = last === undefined ? block.transactions.length : last + 1;
    // Transactions run without a tracer hold the event loop for their whole run: turns between them.
    const turns = new EventLoopTurns();
    for (let index = 0; index < count; index++) {
      await turns.pause();
      signal?.throwIfAborted();
      const hash = block.transactions[index]!;
      const raw = await this.chain.store.rawTransactionAt({ height, index });
      if (raw === undefined) throw new Error(`block ${height} has no raw transaction ${index}`);
      const tx = createTxFromRLP(raw, this.#txOptions);
      const tracer =
        last === undefined || index === last
          ? tracerFor({
              block,
              hash,
              index,
              firstLogIndex: logIndex,
              coinbase: evmBlock.header.coinbase.toString(),
              from: tx.getSenderAddress().toString(),
              to: tx.to?.toString(),
              value: tx.value,
              gasLimit: tx.gasLimit,
              gasPrice: baseFee + effectiveTip(tx, baseFee),
              input: tx.data,
              ...(isEOACode7702Tx(tx) ? { authorizationList: tx.authorizationList } : {}),
              state,
            })
          : undefined;
      nativeEffects.reset();
      const detach =
        tracer === undefined ? undefined : attachTracer({ vm, nativeEffects, tracedOpcodes }, tracer, signal);
      let outcome: TraceOutcome;
      try {
        const result = await runBlockTransaction(vm, tx, evmBlock, gasUsed);
        gasUsed += result.totalGasSpent;
        logIndex += result.receipt.logs.length;
        outcome = traceOutcomeOf(result);
      } catch (error) {
        // An abort inside the EVM comes out as the VM's failure: the signal's reason is the error.
        signal?.throwIfAborted();
        throw error;
      } finally {
        detach?.();
      }
      await tracer?.finish?.(outcome);
      replayed.push({ ...outcome, hash, index });
    }
    return replayed;
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

import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { StateManagerInterface } from '@ethereumjs/common';
import type { PrefixedHexString } from '@ethereumjs/util';
import type { NativeTransfer } from '../chain/native/native-types.js';
import type { BlockRecord } from '../chain/records.js';
import type { BlockOverrides, CallRequest, StateOverrides } from '../rpc/call-codecs.js';
import type { BlockRef } from '../rpc/block-codecs.js';

/**
 * Hooks attached to the EVM while one transaction (or call) runs. Each may return a promise: the
 * EVM waits for it. Attaching `step` makes the interpreter stop at every opcode, so leave it out
 * when only call frames are wanted.
 */
export interface EvmTracer {
  /** Before each opcode, with the frame's stack, memory, gas and state. */
  step?(step: InterpreterStep): void | Promise<void>;
  /** When a call frame (the transaction's own included) starts. */
  enter?(message: Message): void | Promise<void>;
  /** When a call frame ends, with its result. */
  exit?(result: EVMResult): void | Promise<void>;
  /** A native-side effect made by a precompile in the transaction: a bank transfer. */
  nativeTransfer?(transfer: NativeTransfer): void;
}

/** The transaction a tracer is about to watch, and the state it starts from. */
export interface TraceSubject {
  /** The block it runs in (for a call, the block it is simulated on top of). */
  readonly block: BlockRecord;
  /** Its hash; undefined for a simulated call. */
  readonly hash: PrefixedHexString | undefined;
  /** Its index among the block's EVM transactions; undefined for a simulated call. */
  readonly index: number | undefined;
  readonly from: PrefixedHexString;
  /** Undefined for a contract creation. */
  readonly to: PrefixedHexString | undefined;
  readonly value: bigint;
  readonly gasLimit: bigint;
  readonly gasPrice: bigint;
  readonly input: Uint8Array;
  /** The state right before it runs; read it (and after the run, the state it left) for prestate diffs. */
  readonly state: StateManagerInterface;
}

/** What a traced transaction (or call) did. */
export interface TraceOutcome {
  /** Gas charged, refund deducted: the receipt's `gasUsed`. */
  readonly gasUsed: bigint;
  readonly returnValue: Uint8Array;
  /** geth's VM error text (`execution reverted`, `out of gas`...), undefined on success. */
  readonly error: string | undefined;
  /** The address a creation made. */
  readonly createdAddress: PrefixedHexString | undefined;
}

/** One transaction of a replayed block and what it did. */
export interface ReplayedTransaction extends TraceOutcome {
  readonly hash: PrefixedHexString;
  readonly index: number;
}

export interface ReplayOptions {
  /** Stops the replay between two opcodes with the signal's reason as the error. */
  readonly signal?: AbortSignal;
}

/**
 * Replays committed blocks on their parent's state with tracers attached, for the `debug_trace*`
 * methods: the block's native transactions first and its EVM transactions in order, as the block
 * producer ran them, so that every result equals what happened (receipts' `gasUsed` included).
 * Heights below the state the node keeps fail with the pruned error (-32000); the genesis block
 * with `genesis is not traceable`.
 */
export interface Replayer {
  /**
   * Replays every EVM transaction of block `height`. `tracerFor` is asked before each runs and
   * returns the tracer to attach, or undefined to run it untraced.
   */
  replayBlock(
    height: number,
    tracerFor: (subject: TraceSubject) => EvmTracer | undefined,
    options?: ReplayOptions,
  ): Promise<ReplayedTransaction[]>;
  /** Replays the block of committed transaction `hash` up to it, tracing it alone. Unknown hash: -32000. */
  replayTransaction(
    hash: PrefixedHexString,
    tracerFor: (subject: TraceSubject) => EvmTracer | undefined,
    options?: ReplayOptions,
  ): Promise<ReplayedTransaction>;
  /** Runs a call as `eth_call` would on the state after block `ref`, traced (`debug_traceCall`). */
  traceCall(
    request: CallRequest,
    ref: BlockRef,
    tracerFor: (subject: TraceSubject) => EvmTracer | undefined,
    overrides?: { readonly state?: StateOverrides; readonly block?: BlockOverrides },
    options?: ReplayOptions,
  ): Promise<TraceOutcome>;
}

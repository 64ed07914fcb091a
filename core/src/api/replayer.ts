import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { StateManagerInterface } from '@ethereumjs/common';
import type { EOACode7702AuthorizationListBytes, PrefixedHexString } from '@ethereumjs/util';
import type { NativeTransfer } from '../chain/native/native-types.js';
import type { BlockRecord } from '../chain/records.js';
import type { BlockOverrides, CallRequest, StateOverrides } from '../rpc/call-codecs.js';
import type { BlockRef } from '../rpc/block-codecs.js';

/**
 * The opcode that opened a call frame, as geth's tracers name frame types. The transaction's own
 * frame is `CALL` or `CREATE`.
 */
export type FrameType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2';

/** A log emitted by a LOG0..LOG4 opcode, at the moment it runs (it goes if its frame reverts). */
export interface TracedLog {
  readonly address: PrefixedHexString;
  readonly topics: readonly PrefixedHexString[];
  readonly data: Uint8Array;
}

/** A SELFDESTRUCT about to run: `value` is what moves to the beneficiary. */
export interface TracedSelfDestruct {
  readonly address: PrefixedHexString;
  readonly beneficiary: PrefixedHexString;
  readonly value: bigint;
}

/**
 * A read or write of a state record by a traced transaction (`debug_traceStateAccess`). The key
 * names the record: `0x01 ‖ address` an account, `0x02 ‖ address` its code, `0x03 ‖ address ‖
 * slot` a storage slot (`0x03 ‖ address` alone: all its slots cleared).
 */
export interface StateAccess {
  /** `evm` for accounts, code and contract storage; `bank`, `auth` or `addr` for a native module's records. */
  readonly module: string;
  readonly op: 'read' | 'write';
  readonly key: Uint8Array;
  /** The account's RLP (empty when there is none), the code, or the slot's value (empty when unset). */
  readonly value: Uint8Array;
}

/**
 * Hooks attached to the EVM while one transaction (or call) runs. Each may return a promise: the
 * EVM waits for it. Attaching `step` makes the interpreter stop at every opcode (or at those
 * `stepOpcodes` names), so leave it out when only call frames are wanted.
 */
export interface EvmTracer {
  /**
   * Before the transaction's checks, gas purchase and nonce bump: the subject's `state` still
   * holds the state it starts from (geth's `OnTxStart`, where prestates read the sender).
   */
  start?(): void | Promise<void>;
  /**
   * Before each opcode, with the frame's stack, memory, gas and state. `opcode.dynamicFee` is the
   * opcode's own cost; for the CALL family geth's `gasCost` also counts the gas passed on, which
   * the next frame's `message.gasLimit` tells (the struct logger adds it). `opcode.name` is the full name (`PUSH1`, `LOG2`). An opcode that fails for lack of gas is
   * still announced; its frame's `exit` then carries the error.
   */
  step?(step: InterpreterStep): void | Promise<void>;
  /**
   * The opcodes (by number) `step` is called for; every opcode when absent. The others run as
   * they do untraced, so a tracer that watches a few opcodes costs little more than none.
   */
  readonly stepOpcodes?: ReadonlySet<number>;
  /**
   * When a call frame (the transaction's own included, precompiles too) starts: `message.depth`
   * is 0 for the transaction's frame, `message.gasLimit` the gas it gets. A creation's address is
   * known only at `exit` (`result.createdAddress`).
   */
  enter?(message: Message, type: FrameType): void | Promise<void>;
  /** When a call frame ends, with its result (`execResult.executionGasUsed` is the gas it used). */
  exit?(result: EVMResult): void | Promise<void>;
  /** A log as it is emitted, in execution order between the frames' `enter` and `exit`. */
  log?(log: TracedLog): void;
  /** A SELFDESTRUCT as it runs (geth's tracers show it as a frame of its own). */
  selfDestruct?(selfDestruct: TracedSelfDestruct): void;
  /**
   * Each state record the transaction reads or writes, from its checks and gas purchase to its
   * fee payment, reverted writes included.
   */
  stateAccess?(access: StateAccess): void;
  /** A native-side effect made by a precompile in the transaction: a bank transfer. */
  nativeTransfer?(transfer: NativeTransfer): void;
  /**
   * Once the transaction has ended and its fees are paid, before anything else runs: the subject's
   * `state` is now the state it left (prestate diffs read their `post` side here). It is the last
   * moment the state may be read: a tracer builds its result by the time this resolves.
   */
  finish?(outcome: TraceOutcome): void | Promise<void>;
}

/** The transaction a tracer is about to watch, and the state it starts from. */
export interface TraceSubject {
  /** The block it runs in (for a call, the block whose state it runs on; block overrides are not reflected). */
  readonly block: BlockRecord;
  /** Its hash; undefined for a simulated call. */
  readonly hash: PrefixedHexString | undefined;
  /** Its index among the block's EVM transactions; undefined for a simulated call. */
  readonly index: number | undefined;
  /** The block-wide index its first log gets (0 for a simulated call). */
  readonly firstLogIndex: number;
  /** The COINBASE the EVM sees: the fee collector, or a call's block override. */
  readonly coinbase: PrefixedHexString;
  readonly from: PrefixedHexString;
  /** Undefined for a contract creation. */
  readonly to: PrefixedHexString | undefined;
  readonly value: bigint;
  readonly gasLimit: bigint;
  /** The price per gas it pays (base fee plus effective tip). */
  readonly gasPrice: bigint;
  readonly input: Uint8Array;
  /** The authorizations (EIP-7702) of a set-code transaction or of a call object that carries them; else absent. */
  readonly authorizationList?: EOACode7702AuthorizationListBytes;
  /**
   * The state right before it runs, sender not yet charged: read it here for prestate values, in
   * the hooks for the state as it runs, and in {@link EvmTracer.finish} for the state it left.
   */
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
  /**
   * Stops the replay with the signal's reason as the error: checked between transactions, at
   * each call frame, and at each opcode when the tracer has `step`.
   */
  readonly signal?: AbortSignal;
  /**
   * Work nobody waits for (trace baking): between transactions, the replay waits while the node
   * executes a block, so that the block has the thread to itself.
   */
  readonly background?: boolean;
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
  /**
   * Replays the block of committed transaction `hash` up to it, tracing it alone. Unknown hash:
   * -32000 `transaction not found`.
   */
  replayTransaction(
    hash: PrefixedHexString,
    tracerFor: (subject: TraceSubject) => EvmTracer | undefined,
    options?: ReplayOptions,
  ): Promise<ReplayedTransaction>;
  /**
   * Runs a call as `eth_call` would on the state after block `ref` (gas cap, time limit, zero base
   * fee when it names no price, overrides), as a whole transaction, traced (`debug_traceCall`). A
   * VM error (a revert included) is part of the outcome; a check that fails before it runs is
   * thrown as geth words it (`tracing failed: insufficient funds for gas * price + value: ...`).
   */
  traceCall(
    request: CallRequest,
    ref: BlockRef,
    tracerFor: (subject: TraceSubject) => EvmTracer | undefined,
    overrides?: { readonly state?: StateOverrides; readonly block?: BlockOverrides },
    options?: ReplayOptions,
  ): Promise<TraceOutcome>;
}

import type { EVMResult, Message } from '@ethereumjs/evm';
import type { PrefixedHexString } from '@ethereumjs/util';
import {
  gethVmError,
  HELD_ANSWERS_BUSY,
  InvalidInputError,
  LimitExceededError,
  type EvmTracer,
  type FrameType,
  type TraceOutcome,
  type TraceSubject,
} from '@evmnode/core';
import { MAX_TRANSACTION_TRACE_BYTES, type JsonBound } from './json-in-turns.js';
import type { ResultRoom } from './tracer.js';

/** A frame's type as geth's call tracers name it: the opcode that opened it. */
export type CallFrameType = FrameType | 'SELFDESTRUCT';

/** A log a frame emitted, where geth's callTracer places it. */
export interface CallLog {
  readonly address: PrefixedHexString;
  readonly topics: readonly PrefixedHexString[];
  readonly data: Uint8Array;
  /** Block-wide log index. */
  readonly index: number;
  /** How many sub-calls of its frame came before it. */
  readonly position: number;
}

/** One call frame as geth's `callFrame` holds it, which both callTracer and flatCallTracer print. */
export interface CallFrame {
  readonly type: CallFrameType;
  readonly from: PrefixedHexString;
  /** Undefined for a failed creation. */
  to: PrefixedHexString | undefined;
  readonly input: Uint8Array;
  readonly gas: bigint;
  gasUsed: bigint;
  /** Undefined for a STATICCALL. */
  readonly value: bigint | undefined;
  /** What it returned; on failure only a revert's data. */
  output: Uint8Array;
  /** geth's VM error text. */
  error: string | undefined;
  /** A call into a precompile (the EVM's or the chain's own). */
  precompile: boolean;
  readonly calls: CallFrame[];
  logs: CallLog[];
}

/** A frame still running, with what its end needs. */
interface OpenFrame {
  readonly frame: CallFrame;
  readonly message: Message;
  /** The running log count when it started: a failure gives its logs' indices back, as geth's state does. */
  readonly logCountAtStart: number;
}

const NO_BYTES = new Uint8Array(0);
const REVERTED = 'execution reverted';
/** About what a frame weighs as JSON besides its input and output: addresses, gas, value, type. */
const FRAME_JSON_BYTES = 256;
/** About what a log weighs as JSON besides its data, and each of its topics. */
const LOG_JSON_BYTES = 160;
const TOPIC_JSON_BYTES = 70;

/** What the answer of a tracer of call frames may weigh as JSON. */
export const CALL_FRAMES_BOUND: JsonBound = {
  maxBytes: MAX_TRANSACTION_TRACE_BYTES,
  tooLarge: () =>
    new InvalidInputError(
      `trace too large: its call frames pass ${MAX_TRANSACTION_TRACE_BYTES / 1024 / 1024} MiB as JSON`,
    ),
};

/** Why a recording stopped keeping what it saw. */
type Refusal = 'too large' | 'no room';

/**
 * Builds geth's call frame tree of one transaction from the Replayer's hooks. With `topOnly`
 * (callTracer's `onlyTopCall`) it keeps the transaction's own frame and its own logs alone.
 * What it keeps takes room from the trace's `room`, up to {@link MAX_TRANSACTION_TRACE_BYTES} as
 * JSON; past either it keeps nothing more, and {@link top} refuses to answer.
 */
export class CallFrameRecorder {
  readonly #subject: TraceSubject;
  readonly #room: ResultRoom;
  readonly #topOnly: boolean;
  readonly #open: OpenFrame[] = [];
  #top: CallFrame | undefined;
  #logCount = 0;
  #bytes = 0;
  #refused: Refusal | undefined;

  constructor(subject: TraceSubject, room: ResultRoom, topOnly = false) {
    this.#subject = subject;
    this.#room = room;
    this.#topOnly = topOnly;
  }

  /** The hooks that feed the recorder. */
  readonly hooks: EvmTracer = {
    enter: (message, type) => this.#enter(message, type),
    exit: (result) => this.#exit(result),
    log: (log) => {
      const open = this.#open.at(-1)!;
      // Counted even when not kept; a failed frame gives its logs' indices back (see #exit), so they match the receipt's.
      const index = this.#subject.firstLogIndex + this.#logCount++;
      if (this.#topOnly && this.#open.length > 1) return;
      // Listed, not spread: Node 20 adds properties after a spread slowly (docs/performance.md).
      const { address, topics, data } = log;
      if (!this.#keep(LOG_JSON_BYTES + TOPIC_JSON_BYTES * topics.length + 2 * data.length)) return;
      open.frame.logs.push({ address, topics, data, index, position: open.frame.calls.length });
    },
    selfDestruct: ({ address, beneficiary, value }) => {
      if (this.#topOnly || !this.#keep(FRAME_JSON_BYTES)) return;
      this.#open.at(-1)!.frame.calls.push({
        type: 'SELFDESTRUCT',
        from: address,
        to: beneficiary,
        input: NO_BYTES,
        gas: 0n,
        gasUsed: 0n,
        value,
        output: NO_BYTES,
        error: undefined,
        precompile: false,
        calls: [],
        logs: [],
      });
    },
    finish: (outcome) => this.#finish(outcome),
  };

  /** The transaction's frame, once it finished; an error if the recording outgrew its room. */
  get top(): CallFrame {
    if (this.#refused === 'too large') throw CALL_FRAMES_BOUND.tooLarge();
    if (this.#refused === 'no room') throw new LimitExceededError(HELD_ANSWERS_BUSY);
    if (this.#top === undefined) throw new Error('the traced transaction did not finish');
    return this.#top;
  }

  /** Takes room for `bytes` more of JSON; false, from then on, once the trace passes its bound or finds no room. */
  #keep(bytes: number): boolean {
    if (this.#refused !== undefined) return false;
    this.#bytes += bytes;
    if (this.#bytes > MAX_TRANSACTION_TRACE_BYTES) this.#refused = 'too large';
    else if (!this.#room.take(bytes)) this.#refused = 'no room';
    return this.#refused === undefined;
  }

  #enter(message: Message, type: FrameType): void {
    const subject = this.#subject;
    const isTop = message.depth === 0;
    // onlyTopCall records no sub-call, so they take no room.
    const kept = isTop || (!this.#topOnly && this.#keep(FRAME_JSON_BYTES + 2 * message.data.length));
    // A DELEGATECALL or CALLCODE runs in its caller's context: geth shows the caller as `from` and the code's address as `to`.
    const inCallerContext = type === 'DELEGATECALL' || type === 'CALLCODE';
    const frame: CallFrame = {
      type,
      from: isTop ? subject.from : (inCallerContext ? message.to! : message.caller).toString(),
      to: isTop ? subject.to : message.to === undefined ? undefined : message.codeAddress.toString(),
      // Copied: the EVM may reuse the memory it points into.
      input: isTop ? subject.input : kept ? message.data.slice() : NO_BYTES,
      gas: isTop ? subject.gasLimit : message.gasLimit,
      gasUsed: 0n,
      value: type === 'STATICCALL' ? undefined : message.value,
      output: NO_BYTES,
      error: undefined,
      precompile: false,
      calls: [],
      logs: [],
    };
    if (!isTop && kept) this.#open.at(-1)!.frame.calls.push(frame);
    this.#open.push({ frame, message, logCountAtStart: this.#logCount });
  }

  #exit(result: EVMResult): void {
    const { frame, message, logCountAtStart } = this.#open.pop()!;
    if (this.#open.length === 0) {
      this.#top = frame;
      return; // The transaction's own frame takes its results from the outcome.
    }
    const error = result.execResult.exceptionError?.error;
    if (error !== undefined) this.#logCount = logCountAtStart;
    frame.gasUsed = result.execResult.executionGasUsed;
    frame.precompile = message.isCompiled;
    const { returnValue } = result.execResult;
    settle(
      frame,
      !this.#topOnly && this.#keep(2 * returnValue.length) ? returnValue.slice() : NO_BYTES,
      error === undefined ? undefined : gethVmError(error),
      result.createdAddress?.toString(),
    );
  }

  #finish(outcome: TraceOutcome): void {
    // A recording that outgrew its room answers with why, from its result.
    if (this.#refused !== undefined) return;
    const top = this.top;
    top.gasUsed = outcome.gasUsed;
    settle(top, outcome.returnValue, outcome.error, outcome.createdAddress);
    dropFailedLogs(top, false);
  }
}

/** A frame's end as geth's `processOutput` records it. */
function settle(frame: CallFrame, output: Uint8Array, error: string | undefined, created: string | undefined): void {
  const isCreation = frame.type === 'CREATE' || frame.type === 'CREATE2';
  if (isCreation) frame.to = error === undefined ? (created as PrefixedHexString | undefined) : undefined;
  frame.error = error;
  frame.output = error === undefined || error === REVERTED ? output : NO_BYTES;
}

/** A failed frame's logs, and its children's, never happened. */
function dropFailedLogs(frame: CallFrame, parentFailed: boolean): void {
  const failed = parentFailed || frame.error !== undefined;
  if (failed) frame.logs = [];
  for (const call of frame.calls) dropFailedLogs(call, failed);
}

import type { EvmTracer, TraceOutcome, TraceSubject } from '@evmnode/core';
import type { TraceConfig } from '../trace-config.js';

/** One tracer watching one transaction (or call): the hooks it attaches and the result it builds. */
export interface TransactionTracer {
  readonly hooks: EvmTracer;
  /** The tracer's JSON result (a value, or RawJson), or a promise of it, once the transaction ran (and `hooks.finish` was called). */
  result(outcome: TraceOutcome): unknown;
  /** Frees what the tracer holds outside the JS heap; called once the trace is over, whether it ran or failed. */
  dispose?(): void;
}

/**
 * Room for the bytes of the results a trace gathers, from the node's bound on the answers it holds
 * for clients (HeldAnswers): given back when the trace ends.
 */
export interface ResultRoom {
  /** Takes room for `bytes`; false when there is none. */
  take(bytes: number): boolean;
  /** Gives back room taken, for bytes no longer held. */
  give(bytes: number): void;
}

/** The limits of the trace a tracer runs in: its time, for tracers that run code of their own, and the room for its results. */
export interface TraceRun {
  /** Fires when the trace is to stop. */
  readonly signal: AbortSignal;
  /** When the trace's time is up (ms since the epoch): code that holds the thread must check it, as timers cannot fire. */
  readonly deadline: number;
  /** The error a trace past its deadline fails with. */
  timeoutError(): Error;
  readonly room: ResultRoom;
}

/** Makes a tracer for the transaction `subject` describes, with the call's config. */
export type TracerFactory = (subject: TraceSubject, config: TraceConfig, run: TraceRun) => TransactionTracer;

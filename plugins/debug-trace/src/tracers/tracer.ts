import type { EvmTracer, TraceOutcome, TraceSubject } from '@evmnode/core';
import type { TraceConfig } from '../trace-config.js';

/** One tracer watching one transaction (or call): the hooks it attaches and the result it builds. */
export interface TransactionTracer {
  readonly hooks: EvmTracer;
  /** The tracer's JSON result, once the transaction ran (and `hooks.finish` was called). */
  result(outcome: TraceOutcome): unknown;
}

/** Makes a tracer for the transaction `subject` describes, with the call's config. */
export type TracerFactory = (subject: TraceSubject, config: TraceConfig) => TransactionTracer;

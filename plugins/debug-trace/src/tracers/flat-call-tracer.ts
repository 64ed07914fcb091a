import { bigIntToHex } from '@ethereumjs/util';
import { boolean, objectOf, type TraceSubject } from '@evmnode/core';
import { CALL_FRAMES_BOUND, CallFrameRecorder, type CallFrame } from './call-frames.js';
import { jsonInTurns } from './json-in-turns.js';
import type { TracerFactory } from './tracer.js';
import { tracerOptions } from './tracer-options.js';

const flatCallTracerConfig = objectOf('native.flatCallTracerConfig', {
  convertParityErrors: boolean.optional(),
  includePrecompiles: boolean.optional(),
});

/** geth's words to parity's, whole. */
const PARITY_ERRORS: Readonly<Record<string, string>> = {
  'contract creation code storage out of gas': 'Out of gas',
  'out of gas': 'Out of gas',
  'gas uint64 overflow': 'Out of gas',
  'max code size exceeded': 'Out of gas',
  'invalid jump destination': 'Bad jump destination',
  'execution reverted': 'Reverted',
  'return data out of bounds': 'Out of bounds',
  'stack limit reached 1024 (1023)': 'Out of stack',
  'precompiled failed': 'Built-in failed',
  'invalid input length': 'Built-in failed',
};

/** geth's words to parity's, by how they begin (`invalid opcode: INVALID`, `stack underflow (0 <=> 2)`). */
const PARITY_ERROR_PREFIXES: readonly (readonly [string, string])[] = [
  ['invalid opcode:', 'Bad instruction'],
  ['stack underflow', 'Stack underflow'],
];

interface FlatOptions {
  readonly convertParityErrors: boolean;
  readonly includePrecompiles: boolean;
  /** The fields every frame of the transaction shares. */
  readonly place: {
    readonly blockHash: string | null;
    readonly blockNumber: number;
    readonly transactionHash: string | null;
    readonly transactionPosition: number;
  };
}

/** geth's `flatCallTracer`: callTracer's frames, flattened in parity's format. */
export const flatCallTracer: TracerFactory = (subject, config, run) => {
  const { convertParityErrors = false, includePrecompiles = false } = tracerOptions(config, flatCallTracerConfig);
  const recorder = new CallFrameRecorder(subject, run.room);
  const options = { convertParityErrors, includePrecompiles, place: placeOf(subject) };
  return { hooks: recorder.hooks, result: () => jsonInTurns(flatFrames(recorder.top, options), CALL_FRAMES_BOUND) };
};

/** Where the transaction is; geth leaves a call's (`debug_traceCall`) context empty. */
function placeOf(subject: TraceSubject): FlatOptions['place'] {
  const isCall = subject.hash === undefined;
  return {
    blockHash: isCall ? null : subject.block.hash,
    blockNumber: isCall ? 0 : subject.block.height,
    transactionHash: subject.hash ?? null,
    transactionPosition: subject.index ?? 0,
  };
}

/** `top` and its sub-calls, depth first, as parity's trace entries, each made as the answer is written. */
function* flatFrames(top: CallFrame, options: FlatOptions): Generator<Record<string, unknown>> {
  const pending: { readonly frame: CallFrame; readonly traceAddress: readonly number[] }[] = [
    { frame: top, traceAddress: [] },
  ];
  while (pending.length > 0) {
    const { frame, traceAddress } = pending.pop()!;
    // Parity leaves out plain calls into precompiles.
    const calls = options.includePrecompiles
      ? frame.calls
      : frame.calls.filter((call) => !(call.precompile && (call.type === 'CALL' || call.type === 'STATICCALL')));
    yield flatEntry(frame, calls.length, traceAddress, options);
    for (let index = calls.length - 1; index >= 0; index--) {
      pending.push({ frame: calls[index]!, traceAddress: [...traceAddress, index] });
    }
  }
}

/** One frame as a parity trace entry; bytes are written as hex by {@link jsonInTurns}. */
function flatEntry(
  frame: CallFrame,
  subtraces: number,
  traceAddress: readonly number[],
  options: FlatOptions,
): Record<string, unknown> {
  const error = frame.error !== undefined && options.convertParityErrors ? parityError(frame.error) : frame.error;
  // A revert's output says why; any other failure has no result.
  const hasResult = frame.error === undefined || frame.error === 'execution reverted';
  const { action, result, type } = actionOf(frame);
  return {
    action,
    blockHash: options.place.blockHash,
    blockNumber: options.place.blockNumber,
    ...(error === undefined ? {} : { error }),
    ...(hasResult && result !== undefined ? { result } : {}),
    subtraces,
    traceAddress,
    transactionHash: options.place.transactionHash,
    transactionPosition: options.place.transactionPosition,
    type,
  };
}

/** A frame's `action`, `result` and `type`, keys in geth's order. */
function actionOf(frame: CallFrame): {
  action: Record<string, unknown>;
  result: Record<string, unknown> | undefined;
  type: string;
} {
  // Every frame carries a value, a STATICCALL's included.
  const value = bigIntToHex(frame.value ?? 0n);
  switch (frame.type) {
    case 'SELFDESTRUCT':
      return {
        action: { address: frame.from, balance: value, refundAddress: frame.to },
        result: undefined,
        type: 'suicide',
      };
    case 'CREATE':
    case 'CREATE2':
      return {
        action: {
          creationMethod: frame.type.toLowerCase(),
          from: frame.from,
          gas: bigIntToHex(frame.gas),
          init: frame.input,
          value,
        },
        result: {
          ...(frame.to === undefined ? {} : { address: frame.to }),
          code: frame.output,
          gasUsed: bigIntToHex(frame.gasUsed),
        },
        type: 'create',
      };
    default:
      return {
        action: {
          callType: frame.type.toLowerCase(),
          from: frame.from,
          gas: bigIntToHex(frame.gas),
          input: frame.input,
          ...(frame.to === undefined ? {} : { to: frame.to }),
          value,
        },
        result: { gasUsed: bigIntToHex(frame.gasUsed), output: frame.output },
        type: 'call',
      };
  }
}

function parityError(error: string): string {
  return PARITY_ERRORS[error] ?? PARITY_ERROR_PREFIXES.find(([prefix]) => error.startsWith(prefix))?.[1] ?? error;
}

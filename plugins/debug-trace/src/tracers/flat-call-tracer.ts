import { bigIntToHex, bytesToHex } from '@ethereumjs/util';
import { boolean, objectOf, type TraceSubject } from '@evmnode/core';
import { CallFrameRecorder, type CallFrame } from './call-frames.js';
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
export const flatCallTracer: TracerFactory = (subject, config) => {
  const { convertParityErrors = false, includePrecompiles = false } = tracerOptions(config, flatCallTracerConfig);
  const recorder = new CallFrameRecorder(subject);
  const options = { convertParityErrors, includePrecompiles, place: placeOf(subject) };
  return { hooks: recorder.hooks, result: () => flatFrames(recorder.top, [], options) };
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

/** `frame` and its sub-calls, depth first, as parity's trace entries. */
function flatFrames(frame: CallFrame, traceAddress: number[], options: FlatOptions): Record<string, unknown>[] {
  // Parity leaves out plain calls into precompiles.
  const calls = options.includePrecompiles
    ? frame.calls
    : frame.calls.filter((call) => !(call.precompile && (call.type === 'CALL' || call.type === 'STATICCALL')));
  const error = frame.error !== undefined && options.convertParityErrors ? parityError(frame.error) : frame.error;
  // A revert's output says why; any other failure has no result.
  const hasResult = frame.error === undefined || frame.error === 'execution reverted';
  const { action, result, type } = actionOf(frame);
  const entry = {
    action,
    blockHash: options.place.blockHash,
    blockNumber: options.place.blockNumber,
    ...(error === undefined ? {} : { error }),
    ...(hasResult && result !== undefined ? { result } : {}),
    subtraces: calls.length,
    traceAddress,
    transactionHash: options.place.transactionHash,
    transactionPosition: options.place.transactionPosition,
    type,
  };
  return [entry, ...calls.flatMap((call, index) => flatFrames(call, [...traceAddress, index], options))];
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
          init: bytesToHex(frame.input),
          value,
        },
        result: {
          ...(frame.to === undefined ? {} : { address: frame.to }),
          code: bytesToHex(frame.output),
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
          input: bytesToHex(frame.input),
          ...(frame.to === undefined ? {} : { to: frame.to }),
          value,
        },
        result: { gasUsed: bigIntToHex(frame.gasUsed), output: bytesToHex(frame.output) },
        type: 'call',
      };
  }
}

function parityError(error: string): string {
  return PARITY_ERRORS[error] ?? PARITY_ERROR_PREFIXES.find(([prefix]) => error.startsWith(prefix))?.[1] ?? error;
}

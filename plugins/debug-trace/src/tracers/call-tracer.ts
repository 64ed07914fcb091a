import { bigIntToHex, intToHex } from '@ethereumjs/util';
import { boolean, objectOf, revertReason } from '@evmnode/core';
import { CALL_FRAMES_BOUND, CallFrameRecorder, type CallFrame } from './call-frames.js';
import { jsonInTurns } from './json-in-turns.js';
import type { TracerFactory } from './tracer.js';
import { tracerOptions } from './tracer-options.js';

const callTracerConfig = objectOf('native.callTracerConfig', {
  onlyTopCall: boolean.optional(),
  withLog: boolean.optional(),
});

/** geth's `callTracer`: the tree of call frames, with their logs when `withLog` is set. */
export const callTracer: TracerFactory = (subject, config, run) => {
  const { onlyTopCall = false, withLog = false } = tracerOptions(config, callTracerConfig);
  const recorder = new CallFrameRecorder(subject, run.room, onlyTopCall);
  return {
    hooks: recorder.hooks,
    result: () => jsonInTurns(callFrameJson(recorder.top, withLog), CALL_FRAMES_BOUND),
  };
};

/** Each of `calls` in geth's JSON, made as the answer is written. */
function* callFramesJson(calls: readonly CallFrame[], withLog: boolean): Generator<Record<string, unknown>> {
  for (const call of calls) yield callFrameJson(call, withLog);
}

/** A frame in geth's JSON, keys in geth's order; bytes are written as hex by {@link jsonInTurns}. */
function callFrameJson(frame: CallFrame, withLog: boolean): Record<string, unknown> {
  const reason =
    frame.error === 'execution reverted' && frame.output.length >= 4 ? revertReason(frame.output) : undefined;
  return {
    from: frame.from,
    gas: bigIntToHex(frame.gas),
    gasUsed: bigIntToHex(frame.gasUsed),
    ...(frame.to === undefined ? {} : { to: frame.to }),
    input: frame.input,
    ...(frame.output.length === 0 ? {} : { output: frame.output }),
    ...(frame.error === undefined ? {} : { error: frame.error }),
    ...(reason === undefined ? {} : { revertReason: reason }),
    ...(frame.calls.length === 0 ? {} : { calls: callFramesJson(frame.calls, withLog) }),
    ...(!withLog || frame.logs.length === 0
      ? {}
      : {
          logs: frame.logs.map((log) => ({
            address: log.address,
            topics: log.topics,
            data: log.data,
            index: intToHex(log.index),
            position: intToHex(log.position),
          })),
        }),
    ...(frame.value === undefined ? {} : { value: bigIntToHex(frame.value) }),
    type: frame.type,
  };
}

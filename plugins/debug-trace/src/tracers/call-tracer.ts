import { bigIntToHex, bytesToHex, intToHex } from '@ethereumjs/util';
import { boolean, objectOf, revertReason } from '@evmnode/core';
import { CallFrameRecorder, type CallFrame } from './call-frames.js';
import type { TracerFactory } from './tracer.js';
import { tracerOptions } from './tracer-options.js';

const callTracerConfig = objectOf('native.callTracerConfig', {
  onlyTopCall: boolean.optional(),
  withLog: boolean.optional(),
});

/** geth's `callTracer`: the tree of call frames, with their logs when `withLog` is set. */
export const callTracer: TracerFactory = (subject, config) => {
  const { onlyTopCall = false, withLog = false } = tracerOptions(config, callTracerConfig);
  const recorder = new CallFrameRecorder(subject, onlyTopCall);
  return { hooks: recorder.hooks, result: () => callFrameJson(recorder.top, withLog) };
};

/** A frame in geth's JSON, keys in geth's order. */
function callFrameJson(frame: CallFrame, withLog: boolean): Record<string, unknown> {
  const reason =
    frame.error === 'execution reverted' && frame.output.length >= 4 ? revertReason(frame.output) : undefined;
  return {
    from: frame.from,
    gas: bigIntToHex(frame.gas),
    gasUsed: bigIntToHex(frame.gasUsed),
    ...(frame.to === undefined ? {} : { to: frame.to }),
    input: bytesToHex(frame.input),
    ...(frame.output.length === 0 ? {} : { output: bytesToHex(frame.output) }),
    ...(frame.error === undefined ? {} : { error: frame.error }),
    ...(reason === undefined ? {} : { revertReason: reason }),
    ...(frame.calls.length === 0 ? {} : { calls: frame.calls.map((call) => callFrameJson(call, withLog)) }),
    ...(!withLog || frame.logs.length === 0
      ? {}
      : {
          logs: frame.logs.map((log) => ({
            address: log.address,
            topics: log.topics,
            data: bytesToHex(log.data),
            index: intToHex(log.index),
            position: intToHex(log.position),
          })),
        }),
    ...(frame.value === undefined ? {} : { value: bigIntToHex(frame.value) }),
    type: frame.type,
  };
}

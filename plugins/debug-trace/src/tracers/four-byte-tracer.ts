import type { EvmTracer } from '@evmnode/core';
import type { TracerFactory } from './tracer.js';

type Message = Parameters<NonNullable<EvmTracer['enter']>>[0];

/** The frame types whose input is a function call (creations carry code). */
const CALL_TYPES = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);

/**
 * geth's `4byteTracer`: how often each selector was called with each input size, over every call
 * frame (the transaction's own included) with at least 4 bytes of input, precompiles left out.
 */
export const fourByteTracer: TracerFactory = () => {
  const calls: { readonly key: string; readonly message: Message }[] = [];
  return {
    hooks: {
      enter(message, type) {
        const { data } = message;
        // The input may be a view of the caller's memory: read it now.
        if (data.length >= 4 && CALL_TYPES.has(type)) {
          calls.push({ key: `0x${Buffer.from(data.subarray(0, 4)).toString('hex')}-${data.length - 4}`, message });
        }
      },
    },
    result() {
      const counts = new Map<string, number>();
      // Whether a frame runs a precompile is known once it has started: by the result, it is.
      for (const { key, message } of calls) {
        if (message.isCompiled) continue;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      // Keys in ascending order, as geth's JSON writes a map.
      return Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : 1)));
    },
  };
};

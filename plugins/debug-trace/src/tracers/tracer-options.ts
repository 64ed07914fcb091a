import { InvalidInputError, isCodecError, type RequiredCodec } from '@evmnode/core';
import type { TraceConfig } from '../trace-config.js';

/** A tracer's own options from `tracerConfig`, decoded by `options`; a bad one fails the trace as geth does. */
export function tracerOptions<T>(config: TraceConfig, options: RequiredCodec<T>): T {
  try {
    return options.decode(config.tracerConfig ?? {});
  } catch (error) {
    if (isCodecError(error)) throw new InvalidInputError(error.message);
    throw error;
  }
}

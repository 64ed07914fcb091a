import { EventLoopTurns, type EvmTracer } from '@evmnode/core';

/**
 * A tracer's hooks that also give the event loop a turn every few milliseconds, at opcodes (when
 * the tracer watches them) and at call frames: a long trace never holds up blocks or other calls.
 */
export function yielding(hooks: EvmTracer): EvmTracer {
  const turns = new EventLoopTurns();
  const after = (result: void | Promise<void>): void | Promise<void> => {
    const pause = turns.pause();
    if (pause === undefined) return result;
    return result instanceof Promise ? result.then(() => pause) : pause;
  };
  return {
    ...hooks,
    ...(hooks.step === undefined ? {} : { step: (state) => after(hooks.step!(state)) }),
    enter: (message, type) => after(hooks.enter?.(message, type)),
  };
}

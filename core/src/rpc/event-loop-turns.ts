import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long one stretch of work may hold the event loop before it gives other work a turn. */
const TURN_MS = 4;

/**
 * Splits long work (a replay, a trace) into turns of the event loop: the work calls {@link pause}
 * at convenient points and awaits it when it returns a promise, so that blocks, other calls and
 * timers wait a few milliseconds at most. Cheap to call often: most calls return undefined at once.
 */
export class EventLoopTurns {
  #turnStart = performance.now();

  /** A promise of the next turn when this one has run long enough; undefined to keep going. */
  pause(): Promise<void> | undefined {
    if (performance.now() - this.#turnStart < TURN_MS) return undefined;
    return nextTurn().then(() => {
      this.#turnStart = performance.now();
    });
  }
}

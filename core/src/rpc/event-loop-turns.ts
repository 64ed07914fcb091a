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

  /** `turnMs`: how long a turn may run (0: a turn at every pause). */
  constructor(private readonly turnMs = TURN_MS) {}

  /** A promise of the next turn when this one has run long enough; undefined to keep going. */
  pause(): Promise<void> | undefined {
    if (performance.now() - this.#turnStart < this.turnMs) return undefined;
    return nextTurn().then(() => {
      this.#turnStart = performance.now();
    });
  }
}

/** What long work needs of {@link EventLoopTurns}. */
export type Turns = Pick<EventLoopTurns, 'pause'>;

import { setImmediate as nextTurn } from 'node:timers/promises';
import { clientTurns } from './client-turns.js';

/** How long one stretch of work may hold the event loop before it gives other work a turn. */
const TURN_MS = 4;

/**
 * Splits long work (a replay, a trace, a batch) into turns of the event loop: the work calls
 * {@link pause} at convenient points and awaits it when it returns a promise, so that blocks, other
 * calls and timers wait a few milliseconds at most. Cheap to call often: most calls return
 * undefined at once.
 */
export class EventLoopTurns {
  #turnStart = performance.now();
  #stretch = clientTurns.stretchesEnded;

  /**
   * `turnMs`: how long a turn may run (0: a turn at every pause). With a `client` (a remote
   * address), the next turn is the client's among the others' (`ClientTurns`), rather than after
   * the next I/O.
   */
  constructor(
    private readonly turnMs = TURN_MS,
    private readonly client?: string,
  ) {}

  /** A promise of the next turn when this one has run long enough; undefined to keep going. */
  pause(): Promise<void> | undefined {
    const yielded = this.client !== undefined && this.#stretch !== clientTurns.stretchesEnded;
    if (!yielded && performance.now() - this.#turnStart < this.turnMs) return undefined;
    const next = this.client === undefined ? nextTurn() : clientTurns.take(this.client, true);
    if (next === undefined) {
      this.#startTurn();
      return undefined;
    }
    return next.then(() => this.#startTurn());
  }

  #startTurn(): void {
    this.#turnStart = performance.now();
    this.#stretch = clientTurns.stretchesEnded;
  }
}

/** What long work needs of {@link EventLoopTurns}. */
export type Turns = Pick<EventLoopTurns, 'pause'>;

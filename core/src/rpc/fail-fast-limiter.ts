import { LimitExceededError } from '../errors/rpc-error.js';

/**
 * Runs at most `capacity` tasks at once and refuses the next at once, with -32005 (a retry may
 * succeed: viem retries it with back-off), instead of queueing it (interface.md §8).
 */
export class FailFastLimiter {
  #running = 0;

  constructor(readonly capacity: number) {}

  /** Runs `task`, or throws `<method> rejected due to rate limit: server busy` when full. */
  async run<T>(method: string, task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.capacity)
      throw new LimitExceededError(`${method} rejected due to rate limit: server busy`);
    this.#running++;
    try {
      return await task();
    } finally {
      this.#running--;
    }
  }
}

import { ClientQuota } from './client-quota.js';
import { LimitExceededError } from '../errors/rpc-error.js';

/**
 * Runs at most `capacity` tasks at once, and at most `clientShare` of them (rounded up) for one
 * client, and refuses the next at once with -32005 (a retry may succeed: viem retries it with
 * back-off), instead of queueing it (interface.md §8).
 */
export class FailFastLimiter {
  #running = 0;
  readonly #perClient: ClientQuota;

  constructor(
    readonly capacity: number,
    clientShare = 1,
  ) {
    this.#perClient = new ClientQuota(capacity, clientShare);
  }

  /** Runs `task`, or throws `<method> rejected due to rate limit: server busy` when full. */
  async run<T>(method: string, clientId: string, task: () => Promise<T>): Promise<T> {
    // The reference node's busy message, also for a client over its share: a retry cures both.
    if (this.#running >= this.capacity || !this.#perClient.tryAcquire(clientId))
      throw new LimitExceededError(`${method} rejected due to rate limit: server busy`);
    this.#running++;
    try {
      return await task();
    } finally {
      this.#running--;
      this.#perClient.release(clientId);
    }
  }
}

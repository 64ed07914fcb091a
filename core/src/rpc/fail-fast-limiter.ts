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
    /** The refusal's message; the reference node's rate-limit words by default. */
    private readonly refusal: (method: string) => string = (method) =>
      `${method} rejected due to rate limit: server busy`,
  ) {
    this.#perClient = new ClientQuota(capacity, clientShare);
  }

  /** Runs `task`, or throws the refusal (-32005) when full; a task of no named client counts against the capacity only. */
  async run<T>(method: string, clientId: string | undefined, task: () => Promise<T>): Promise<T> {
    // One message, also for a client over its share: a retry cures both.
    if (this.#running >= this.capacity || (clientId !== undefined && !this.#perClient.tryAcquire(clientId)))
      throw new LimitExceededError(this.refusal(method));
    this.#running++;
    try {
      return await task();
    } finally {
      this.#running--;
      if (clientId !== undefined) this.#perClient.release(clientId);
    }
  }
}

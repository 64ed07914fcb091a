/**
 * A token bucket: up to `burst` calls at once, refilled at `perSecond`; a call without a token
 * is refused rather than delayed.
 */
export class TokenBucket {
  #tokens: number;
  #refilledAt = performance.now();

  constructor(
    readonly perSecond: number,
    readonly burst: number = perSecond,
  ) {
    this.#tokens = burst;
  }

  /** Takes a token if one is left. */
  tryTake(): boolean {
    const now = performance.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#refilledAt) / 1000) * this.perSecond);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

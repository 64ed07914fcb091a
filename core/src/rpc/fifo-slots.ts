/**
 * A fixed number of slots, handed out first come first served; those who find none wait, up to a
 * time limit of their own.
 *
 * @example
 * const slots = new FifoSlots(16);
 * if (await slots.acquire(30_000)) {
 *   try { await work(); } finally { slots.release(); }
 * }
 */
export class FifoSlots {
  #free: number;
  /** Insertion-ordered: the first is served first, and one that gives up leaves at no cost. */
  readonly #waiting = new Set<() => void>();

  constructor(readonly size: number) {
    this.#free = size;
  }

  /** True at once when a slot is free; else a promise of true once one is, or of false when `timeoutMs` passes first. */
  acquire(timeoutMs?: number): true | Promise<boolean> {
    if (this.#free > 0) {
      this.#free--;
      return true;
    }
    return new Promise((resolve) => {
      const granted = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.#waiting.delete(granted);
              resolve(false);
            }, timeoutMs);
      this.#waiting.add(granted);
    });
  }

  /** Gives a slot back: to the first waiting, if any. */
  release(): void {
    const first = this.#waiting.values().next();
    if (first.done === true) {
      this.#free++;
      return;
    }
    this.#waiting.delete(first.value);
    first.value();
  }
}

/** A client's waiters, first come first served, and how many slots it may hold. */
interface Line {
  readonly most: number;
  /** Insertion-ordered, so that a waiter that gives up leaves at no cost. */
  readonly waiters: Set<() => void>;
}

/**
 * A fixed number of slots shared by clients, each of which may hold at most its own share of
 * them; those who find none wait, up to a time limit of their own. Waiting clients are served in
 * turn, each one's waiters first come first served, so that a client with a thousand waiting
 * cannot keep another waiting behind them all.
 *
 * @example
 * const slots = new FairSlots(32);
 * if (await slots.acquire('203.0.113.7', 8, 30_000)) {
 *   try { await work(); } finally { slots.release('203.0.113.7'); }
 * }
 */
export class FairSlots {
  #free: number;
  /** Slots each client holds; a client holding none is forgotten. */
  readonly #held = new Map<string, number>();
  /** Clients waiting, in the order they are next served: one served goes to the end. */
  readonly #lines = new Map<string, Line>();

  constructor(readonly size: number) {
    this.#free = size;
  }

  /**
   * Takes a slot for `client`, which may hold at most `most`: true at once when one is free to it;
   * else a promise of true once one is, or of false when `timeoutMs` passes first.
   */
  acquire(client: string, most: number, timeoutMs?: number): true | Promise<boolean> {
    if (this.#free > 0 && this.#heldBy(client) < most && !this.#lines.has(client)) {
      this.#take(client);
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
              const line = this.#lines.get(client)!;
              line.waiters.delete(granted);
              if (line.waiters.size === 0) this.#lines.delete(client);
              resolve(false);
            }, timeoutMs);
      const line = this.#lines.get(client);
      if (line === undefined) this.#lines.set(client, { most, waiters: new Set([granted]) });
      else line.waiters.add(granted);
    });
  }

  /** Gives back a slot `client` took: to the next client in turn that may take one, if any waits. */
  release(client: string): void {
    const held = this.#heldBy(client);
    if (held <= 1) this.#held.delete(client);
    else this.#held.set(client, held - 1);
    this.#free++;
    this.#serve();
  }

  #heldBy(client: string): number {
    return this.#held.get(client) ?? 0;
  }

  #take(client: string): void {
    this.#free--;
    this.#held.set(client, this.#heldBy(client) + 1);
  }

  #nextInTurn(): [string, Line] | undefined {
    for (const entry of this.#lines) if (this.#heldBy(entry[0]) < entry[1].most) return entry;
    return undefined;
  }

  /**
   * Hands the free slots to waiting clients in turn, passing over those that hold their share:
   * few can at once, since the shares of those that do fill the slots.
   */
  #serve(): void {
    while (this.#free > 0) {
      const next = this.#nextInTurn();
      if (next === undefined) return;
      const [client, line] = next;
      const first = line.waiters.values().next().value!;
      line.waiters.delete(first);
      // Served: to the end of the line of clients, if it still waits.
      this.#lines.delete(client);
      if (line.waiters.size > 0) this.#lines.set(client, line);
      this.#take(client);
      first();
    }
  }
}

/** How far back a backlog is compared with itself: about ten blocks of the default 400 ms. */
const TREND_MS = 4_000;

/**
 * Whether the logs not yet pushed keep growing. A backlog the pushes are working off sheds no
 * one: once the clients that held it back are gone, the others' pushes take it down, in a few
 * turns or, for a reader that keeps up with the chain only just, over seconds, during which it
 * still grows from one block to the next now and then.
 */
export class BacklogTrend {
  /** The backlog at each block of the last {@link TREND_MS}, and the one before them. */
  readonly #samples: { readonly at: number; readonly logs: number }[] = [];

  /** Records the backlog a block leaves: true if it grew since the block before and over the last seconds. */
  grows(logs: number, now = performance.now()): boolean {
    const last = this.#samples.at(-1);
    while (this.#samples.length > 1 && this.#samples[1]!.at <= now - TREND_MS) this.#samples.shift();
    const first = this.#samples[0];
    this.#samples.push({ at: now, logs });
    return last !== undefined && logs > last.logs && logs > first!.logs;
  }
}

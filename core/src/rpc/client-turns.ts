import { setImmediate } from 'node:timers';

/**
 * How long requests may hold the node's thread, in one iteration of the event loop, before they
 * take turns by client: short enough that blocks and I/O are never kept waiting long.
 */
const STRETCH_MS = 5;

/**
 * A client's work waiting for a turn, each kind first come first served: work under way (a batch
 * between runs of calls) before new requests, so that a client's started work ends, and lets go
 * of what it holds, before more of its requests start.
 */
interface Line {
  readonly resuming: Set<() => void>;
  readonly starting: Set<() => void>;
}

/**
 * Shares the node's thread between clients (remote addresses). Work for a client (a request read
 * and dispatched, a batch's next run of calls) asks for a turn first: it goes at once while the
 * work of this iteration of the event loop has run less than a stretch and nobody waits; otherwise
 * it waits, and the waiting clients are served in turn, one piece of work each, a stretch per
 * iteration (each client's work under way first, then its new requests, first come first served,
 * see {@link Line}). A client on a hundred connections then
 * gets no more of the thread than one on a single connection, where each of its connections used
 * to take a turn in every iteration and another client's request waited behind them all.
 *
 * @example
 * const turn = clientTurns.take('203.0.113.7');
 * if (turn !== undefined) await turn;
 * serve(); // runs now; asks again before its next stretch of work
 */
export class ClientTurns {
  /** When the current stretch began; undefined when none is open. */
  #stretchStart: number | undefined;
  /** Clients waiting, in the order they are next served (one served goes to the end), with their waiters. */
  readonly #lines = new Map<string, Line>();
  /** The end of the stretch is due in this iteration's check phase. */
  #endScheduled = false;
  #draining = false;
  #stretchesEnded = 0;

  constructor(private readonly stretchMs = STRETCH_MS) {}

  /**
   * Undefined when `client`'s work may run now; else a promise of its turn. `resuming`: the work is
   * under way (a batch between runs of calls), and goes before the client's new requests.
   */
  take(client: string, resuming = false): Promise<void> | undefined {
    if (this.#lines.size === 0) {
      if (this.#stretchStart === undefined) {
        this.#openStretch();
        this.#scheduleEnd();
        return undefined;
      }
      if (performance.now() - this.#stretchStart < this.stretchMs) return undefined;
    }
    return new Promise((resolve) => {
      let line = this.#lines.get(client);
      if (line === undefined) this.#lines.set(client, (line = { resuming: new Set(), starting: new Set() }));
      (resuming ? line.resuming : line.starting).add(resolve);
      this.#scheduleEnd();
    });
  }

  /**
   * Counts the stretches that ended: work that sees it change since its turn began has let the
   * thread go to I/O and other work, and takes a turn again before it goes on.
   */
  get stretchesEnded(): number {
    return this.#stretchesEnded;
  }

  #openStretch(): number {
    return (this.#stretchStart = performance.now());
  }

  #endStretchNow(): void {
    this.#stretchStart = undefined;
    this.#stretchesEnded++;
  }

  #scheduleEnd(): void {
    if (this.#endScheduled || this.#draining) return;
    this.#endScheduled = true;
    setImmediate(this.#endStretch);
  }

  /** In the check phase, after I/O: ends the stretch, and serves the work waiting in a new one. */
  readonly #endStretch = (): void => {
    this.#endScheduled = false;
    this.#endStretchNow();
    if (this.#lines.size > 0) void this.#drain();
  };

  async #drain(): Promise<void> {
    this.#draining = true;
    const start = this.#openStretch();
    while (this.#lines.size > 0 && performance.now() - start < this.stretchMs) {
      this.#serveNext();
      // The work served runs up to its next wait before the time is read again.
      await Promise.resolve();
    }
    this.#draining = false;
    // What still waits is served after the next I/O, in a stretch of its own.
    if (this.#lines.size > 0) this.#scheduleEnd();
    else this.#endStretchNow();
  }

  #serveNext(): void {
    const [client, line] = this.#lines.entries().next().value!;
    const waiters = line.resuming.size > 0 ? line.resuming : line.starting;
    const first = waiters.values().next().value!;
    waiters.delete(first);
    this.#lines.delete(client);
    if (line.resuming.size + line.starting.size > 0) this.#lines.set(client, line);
    first();
  }
}

/** The node's thread, shared by every port. */
export const clientTurns = new ClientTurns();

/**
 * Runs `work` in `client`'s turn of the node's thread: at once, or once its turn comes.
 * `resuming`: the work goes on with something under way, before the client's new requests.
 */
export function inClientTurn(client: string, work: () => void, resuming = false): void {
  const turn = clientTurns.take(client, resuming);
  if (turn === undefined) work();
  else void turn.then(work);
}

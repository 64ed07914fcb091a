/**
 * The messages sent to one WebSocket client and not yet written out, oldest first: ws calls back
 * each write in the order sent, and every one still buffered when the connection closes. One
 * callback and one timer serve the connection, where a callback and a timer for each message
 * cost a stalled subscriber's drop 40,000 of each to run and clear.
 */
export class WsOutbox<Held> {
  readonly #unwritten: number[] = [];
  readonly #sentAt: number[] = [];
  readonly #held: (Held | undefined)[] = [];
  #oldest = 0;
  #timer: NodeJS.Timeout | undefined;

  /**
   * `onWritten` gets back what {@link sent} was given for a message with bytes left unwritten;
   * `close` closes the connection, as it is once one of its messages has waited `timeoutMs` to be
   * written.
   */
  constructor(
    private readonly timeoutMs: number,
    private readonly onWritten: (held: Held, bytes: number) => void,
    readonly close: () => void,
  ) {}

  /** ws's callback for every message sent through this outbox. */
  readonly written = (): void => {
    const index = this.#oldest++;
    const bytes = this.#unwritten[index]!;
    const held = this.#held[index];
    this.#held[index] = undefined;
    if (this.#oldest === this.#unwritten.length) this.#empty();
    else if (this.#oldest > 1024 && 2 * this.#oldest > this.#unwritten.length) this.#compact();
    if (held !== undefined) this.onWritten(held, bytes);
  };

  /** A message was just sent (with {@link written} as its callback), `unwritten` of its bytes buffered. */
  sent(unwritten: number, held: Held | undefined): void {
    this.#unwritten.push(unwritten);
    this.#sentAt.push(Date.now());
    this.#held.push(held);
    if (unwritten > 0 && this.#timer === undefined) this.#arm(this.timeoutMs);
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#checkOldest(), ms);
  }

  /** Closes the connection if its oldest message has waited too long; otherwise waits for its time. */
  #checkOldest(): void {
    this.#timer = undefined;
    if (this.#oldest === this.#unwritten.length) return;
    const left = this.#sentAt[this.#oldest]! + this.timeoutMs - Date.now();
    if (left <= 0) this.close();
    else this.#arm(left);
  }

  #empty(): void {
    this.#unwritten.length = 0;
    this.#sentAt.length = 0;
    this.#held.length = 0;
    this.#oldest = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #compact(): void {
    this.#unwritten.splice(0, this.#oldest);
    this.#sentAt.splice(0, this.#oldest);
    this.#held.splice(0, this.#oldest);
    this.#oldest = 0;
  }
}

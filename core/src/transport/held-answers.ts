import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { WsOutbox } from './ws-outbox.js';

/** How long a WebSocket message may wait to be written before its connection is closed: geth's default write timeout. */
export const WS_WRITE_TIMEOUT_MS = 10_000;

/** What the calls of a batch get from the first whose answer found no room (-32005: a retry may find some). */
export const HELD_ANSWERS_BUSY = 'server busy: too many large answers held for clients';

/**
 * How long an answer may stay unread before it counts as a sign that its client does not read: a
 * client reading at once takes a fraction of a second for the largest (a block trace's 128 MiB
 * over loopback). Until then its connection is not closed to make room.
 */
export const FRESH_ANSWER_MS = 1_000;

/** A connection's answers left unread, since when, and how to close it. */
interface Unread {
  bytes: number;
  readonly since: number;
  readonly close: () => void;
}

/**
 * The answers the node holds for its clients, bounded for the node as a whole: answers a batch
 * has gathered so far, and answers written but not yet read. Each transport already stops serving
 * a connection whose answers are not read, and each batch stops at its size cap, but thousands of
 * connections that each leave one large answer unread, or each run one large batch, would
 * otherwise hold gigabytes. Past the limit, the connections holding the most unread for
 * {@link FRESH_ANSWER_MS} or more are closed first, as a WebSocket client that reads too slowly is;
 * then a batch (or a trace) that would pass the limit is refused the room. An answer just written
 * is always counted, never refused, and its connection is spared while the total stays within
 * twice the limit: past that, the connections holding the most unread are closed however fresh
 * their answers. Nothing more is gathered until the total is back under the limit.
 *
 * @example
 * res.end(body);
 * heldAnswers.guardHttpAnswer(res, req.socket, arrivedAt + writeTimeoutMs);
 * heldAnswers.sendWs(client, text);
 */
export class HeldAnswers {
  readonly #unread = new Map<object, Unread>();
  readonly #outboxes = new WeakMap<WebSocket, WsOutbox<Unread>>();
  readonly #httpAnswers = new WeakMap<Socket, Set<() => void>>();
  #total = 0;

  constructor(
    readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Bytes held, gathered and unread together. */
  get total(): number {
    return this.#total;
  }

  /**
   * Takes room for `bytes` of a batch's answers, closing the connections holding the most unread
   * if need be; false when even that leaves too little. {@link give} returns it.
   */
  take(bytes: number): boolean {
    this.#closeUnreadFor(bytes);
    if (this.#total + bytes > this.limit) return false;
    this.#total += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#total -= bytes;
  }

  /**
   * Counts `bytes` written to `connection` as unread until the returned function is called (when
   * they are written out, or the connection closes; calling it again does nothing). `close` closes
   * the connection, should it hold the most unread when the limit is passed.
   */
  hold(connection: object, bytes: number, close: () => void): () => void {
    const held = this.#count(connection, bytes, close);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.#uncount(connection, held, bytes);
    };
    this.#closeUnreadFor(0);
    return release;
  }

  /** Adds `bytes` to what `connection` leaves unread; returns its entry, which {@link #uncount} takes. */
  #count(connection: object, bytes: number, close: () => void): Unread {
    let unread = this.#unread.get(connection);
    if (unread === undefined) {
      unread = { bytes: 0, since: this.now(), close };
      this.#unread.set(connection, unread);
    }
    unread.bytes += bytes;
    this.#total += bytes;
    return unread;
  }

  /** `bytes` of `held` were written out; a connection closed for the limit no longer counts: its bytes went with it. */
  #uncount(connection: object, held: Unread, bytes: number): void {
    if (this.#unread.get(connection) !== held) return;
    held.bytes -= bytes;
    this.#total -= bytes;
    if (held.bytes === 0) this.#unread.delete(connection);
  }

  /**
   * Call after `res.end()`: counts what is left of the answer unwritten (a client reading slowly,
   * or not at all), and closes its connection should any of it still be unwritten at `deadline`
   * (epoch ms), as geth's HTTP server does at its write timeout.
   */
  guardHttpAnswer(res: ServerResponse, socket: Socket, deadline: number): void {
    const unwritten = res.writableLength;
    // A connection already closed releases nothing later: its bytes are gone with it.
    if (unwritten === 0 || socket.destroyed) return;
    const close = () => void socket.destroy();
    const release = this.hold(socket, unwritten, close);
    const timer = setTimeout(close, deadline - Date.now());
    const pending = this.#unwrittenHttpAnswers(socket);
    const written = () => {
      clearTimeout(timer);
      release();
      pending.delete(written);
    };
    pending.add(written);
    res.once('finish', written).once('close', written);
  }

  /**
   * The answers of `socket` still unwritten, each released when the socket closes: node:http never
   * finishes, nor closes, the answers it queued behind one a client does not read, and those of
   * a pipelining client that went away stayed counted, with their bodies, for good.
   */
  #unwrittenHttpAnswers(socket: Socket): Set<() => void> {
    let pending = this.#httpAnswers.get(socket);
    if (pending === undefined) {
      const answers = new Set<() => void>();
      socket.once('close', () => {
        for (const written of [...answers]) written();
      });
      this.#httpAnswers.set(socket, answers);
      pending = answers;
    }
    return pending;
  }

  /**
   * Sends a text message (UTF-8 when a Buffer), or a fragment of one when `fin` is false, counting
   * what is left of it unwritten; the connection is closed should it still be unwritten after
   * {@link WS_WRITE_TIMEOUT_MS}.
   */
  sendWs(client: WebSocket, text: string | Buffer, fin = true): void {
    let outbox = this.#outboxes.get(client);
    if (outbox === undefined) {
      outbox = new WsOutbox<Unread>(
        WS_WRITE_TIMEOUT_MS,
        (held, bytes) => this.#uncount(client, held, bytes),
        () => client.terminate(),
      );
      this.#outboxes.set(client, outbox);
    }
    const before = client.bufferedAmount;
    client.send(text, { binary: false, fin }, outbox.written);
    const unwritten = client.bufferedAmount - before;
    if (unwritten === 0) return outbox.sent(0, undefined);
    outbox.sent(unwritten, this.#count(client, unwritten, outbox.close));
    this.#closeUnreadFor(0);
  }

  /**
   * Closes the connections holding the most unread, of those holding it long enough (of all of
   * them past twice the limit: single calls' answers take no room as they are made), until `bytes`
   * more fit.
   */
  #closeUnreadFor(bytes: number): void {
    while (this.#total + bytes > this.limit) {
      const staleSince = this.#total + bytes > 2 * this.limit ? Infinity : this.now() - FRESH_ANSWER_MS;
      let largest: [object, Unread] | undefined;
      for (const entry of this.#unread) {
        if (entry[1].since <= staleSince && (largest === undefined || entry[1].bytes > largest[1].bytes))
          largest = entry;
      }
      if (largest === undefined) return;
      const [connection, unread] = largest;
      this.#unread.delete(connection);
      this.#total -= unread.bytes;
      unread.close();
    }
  }
}

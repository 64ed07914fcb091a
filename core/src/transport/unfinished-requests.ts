import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/** A connection's request received so far, and how to close it. */
interface Unfinished {
  bytes: number;
  readonly close: () => void;
}

/** The body of a JSON-RPC answer to a request closed for room (-32005: a retry may find some). */
export const UNFINISHED_REQUESTS_BUSY = 'server busy: too many requests being received';

/**
 * The requests the node has received part of, bounded for the node as a whole: HTTP bodies and
 * WebSocket messages not yet whole. Each is at most `max_request_body_bytes`, and `read_timeout`
 * ends an HTTP request that takes too long, but 300 connections that each sent all of a 5 MiB
 * body but its last byte held 1.6 GB until then. Past the limit, the connections whose
 * requests have waited longest are closed, as a slow sender's would be at its timeout.
 *
 * @example
 * const count = unfinished.httpBody(req, () => refuse(req));
 * req.on('data', (chunk) => { count(chunk); chunks.push(chunk); });
 * unfinished.guardWs(client, req.socket);
 */
export class UnfinishedRequests {
  readonly #unfinished = new Map<object, Unfinished>();
  #total = 0;

  constructor(readonly limit: number) {}

  /** Bytes received of requests not yet whole. */
  get total(): number {
    return this.#total;
  }

  /**
   * Counts `bytes` more of `connection`'s request, then closes the connections whose requests
   * have waited longest (this one, if it is) while the total passes the limit.
   */
  receive(connection: object, bytes: number, close: () => void): void {
    let unfinished = this.#unfinished.get(connection);
    if (unfinished === undefined) {
      unfinished = { bytes: 0, close };
      this.#unfinished.set(connection, unfinished);
    }
    unfinished.bytes += bytes;
    this.#total += bytes;
    // Map order is arrival order: the first entry has waited longest.
    for (const [oldest] of this.#unfinished) {
      if (this.#total <= this.limit) break;
      this.#drop(oldest)?.close();
    }
  }

  /** `connection`'s request is whole, or gone: its bytes no longer count. */
  finish(connection: object): void {
    this.#drop(connection);
  }

  /**
   * What counts HTTP request `req`'s body, to be called with each chunk read, until the body ends
   * or its connection closes; `refuse` answers it unread should it be closed for room. A body that
   * comes whole in its first chunk (its `Content-Length` in one read, as most do) is not counted:
   * nothing waits for the rest of it.
   */
  httpBody(req: IncomingMessage, refuse: () => void): (chunk: Buffer) => void {
    const declared = Number(req.headers['content-length']);
    let received = 0;
    let counting = false;
    return (chunk) => {
      received += chunk.length;
      if (!counting) {
        if (received === declared) return;
        counting = true;
        const done = (): void => this.finish(req);
        req.once('end', done).once('close', done);
      }
      this.receive(req, chunk.length, refuse);
    };
  }

  /**
   * Counts the bytes WebSocket `client` receives on `socket` (its upgraded connection) since its
   * last whole message or control frame; past the limit it is terminated.
   */
  guardWs(client: WebSocket, socket: Duplex): void {
    const done = (): void => this.finish(client);
    // Before ws reads the bytes: a message they complete is then finished after they are counted.
    socket.prependListener('data', (chunk: Buffer) => this.receive(client, chunk.length, () => client.terminate()));
    client.on('message', done).on('ping', done).on('pong', done).once('close', done);
  }

  #drop(connection: object): Unfinished | undefined {
    const unfinished = this.#unfinished.get(connection);
    if (unfinished === undefined) return undefined;
    this.#unfinished.delete(connection);
    this.#total -= unfinished.bytes;
    return unfinished;
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';
import { MAX_IN_FLIGHT_PER_CONNECTION } from './connection-limits.js';

/**
 * Requests one HTTP connection may have in flight before it is closed. Reading stops at
 * {@link MAX_IN_FLIGHT_PER_CONNECTION}, but the rest of the chunk in hand is parsed (up to about
 * 1,900 `GET /status` in 64 KiB): 40 connections that never read, pipelining
 * `eth_getBlockByNumber`, had 176,000 requests in flight and grew the heap to 3.3 GB. geth serves a
 * connection's requests one at a time.
 */
const MAX_PARSED_PER_CONNECTION = 2048;

/**
 * A connection as node:http holds it. `_paused` is its own flag for a connection it stopped
 * reading (a client that does not read its answers): while it is set, node:http keeps the socket
 * stopped when its requests ask to read on, and pauses its parser after the bytes in hand.
 */
type HttpSocket = Socket & { _paused?: boolean; parser?: { pause(): void; resume(): void } | null };

function stopReading(socket: HttpSocket): void {
  socket._paused = true;
  socket.pause();
  // Within a parse, llhttp stops at the chunk's end.
  socket.parser?.pause();
}

/**
 * Reads a connection again, unless its answers wait unwritten: node:http paused it for that too,
 * under the same flag, and resumes it from its drain handler.
 */
function resumeReading(socket: HttpSocket): void {
  if (socket._paused !== true || socket.writableNeedDrain) return;
  socket._paused = false;
  socket.parser?.resume();
  socket.resume();
}

/**
 * Requests the connections of every server together may hand over in one turn of the event loop
 * before the others stop being read until the next. A connection stopped at
 * {@link MAX_IN_FLIGHT_PER_CONNECTION} still parses the rest of the chunk in hand, and the event loop
 * reads every connection with bytes waiting in one go: 20 connections pipelining `GET /status`
 * from another process made 31,920 requests in one turn, 460 ms of the thread.
 */
const TURN_REQUESTS = 256;

/** The requests of this turn of the event loop, and the connections stopped for the rest of it. */
class ReadTurn {
  /** Every open connection, with how to read it again once its turn ends. */
  readonly #connections = new Map<HttpSocket, () => void>();
  readonly #held = new Set<HttpSocket>();
  #requests = 0;
  #endScheduled = false;

  /** Counts a connection until it closes; `resume` reads it again when nothing else keeps it stopped. */
  track(socket: HttpSocket, resume: () => void): void {
    this.#connections.set(socket, resume);
    socket.once('close', () => {
      this.#connections.delete(socket);
      this.#held.delete(socket);
    });
  }

  /** Whether `socket` is stopped for the rest of this turn. */
  holds(socket: HttpSocket): boolean {
    return this.#held.has(socket);
  }

  /**
   * Counts a request of `socket`; past the turn's share, the other connections stop being read,
   * but those node:http no longer parses (upgraded to WebSocket) and those stopped already.
   */
  admitted(socket: HttpSocket): void {
    if (!this.#endScheduled) {
      this.#endScheduled = true;
      // The check phase follows the reads of this turn and comes before those of the next.
      setImmediate(this.#end);
    }
    if (++this.#requests !== TURN_REQUESTS) return;
    for (const other of this.#connections.keys()) {
      if (other === socket || other._paused === true || !other.parser) continue;
      this.#held.add(other);
      stopReading(other);
    }
  }

  readonly #end = (): void => {
    this.#endScheduled = false;
    this.#requests = 0;
    const held = [...this.#held];
    this.#held.clear();
    for (const socket of held) this.#connections.get(socket)?.();
  };
}

/** The node's thread reads for every server. */
const readTurn = new ReadTurn();

/**
 * Bounds the requests each HTTP connection of a node:http server has in flight (parsed, their
 * answers not yet written out): a client that pipelines slow calls, or never reads its answers,
 * cannot start any number of them. An answer counts until it has left for the kernel, not merely
 * until it is made: node:http holds the answers queued behind one a client does not read in
 * memory, and resuming such a connection as each was made let one client that never read queue
 * 4,400 answers (60 MB) on the native gateway.
 *
 * Besides, all servers' connections together hand over at most {@link TURN_REQUESTS} requests in
 * one turn of the event loop, a chunk's worth past it: the others are read in the next.
 *
 * @example
 * const server = createServer((req, res) => {
 *   if (!pipeline.admit(req, res)) return;
 *   void serve(req, res);
 * });
 * const pipeline = new PipelineBound(server);
 */
export class PipelineBound {
  readonly #inFlight = new WeakMap<Socket, number>();

  /** Bounds the connections of `server` from the moment each opens. */
  constructor(server: Server) {
    server.on('connection', (socket: Socket) => this.#opened(socket));
  }

  /**
   * Counts `req` on its connection until `res` is written out or closed, and stops reading the
   * connection at {@link MAX_IN_FLIGHT_PER_CONNECTION}; past {@link MAX_PARSED_PER_CONNECTION} the
   * connection is destroyed and false returned: the request is not to be served.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const { socket } = req;
    const inFlight = (this.#inFlight.get(socket) ?? 0) + 1;
    if (inFlight > MAX_PARSED_PER_CONNECTION) {
      socket.destroy();
      return false;
    }
    this.#inFlight.set(socket, inFlight);
    readTurn.admitted(socket);
    if (inFlight >= MAX_IN_FLIGHT_PER_CONNECTION) stopReading(socket);
    let left = false;
    const written = (): void => {
      if (left) return;
      left = true;
      this.#finish(socket);
    };
    // node:http never finishes, nor closes, the answers queued behind one of a closed connection;
    // their count goes with the connection.
    res.once('finish', written).once('close', written);
    return true;
  }

  /** An admitted request's answer left: its connection is read again once it has room. */
  #finish(socket: Socket): void {
    const left = (this.#inFlight.get(socket) ?? 1) - 1;
    this.#inFlight.set(socket, left);
    if (left === MAX_IN_FLIGHT_PER_CONNECTION - 1 && !readTurn.holds(socket)) resumeReading(socket);
  }

  #mayRead(socket: Socket): boolean {
    return (this.#inFlight.get(socket) ?? 0) < MAX_IN_FLIGHT_PER_CONNECTION && !readTurn.holds(socket);
  }

  /**
   * node:http reads a connection again each time an answer's bytes leave for the kernel, whatever
   * the connection has in flight; where answers go out one at a time (the native gateway), that
   * let in a chunk of requests per answer, without bound. Its `resume` event comes in the same
   * turn, before any read: the connection is stopped again there while it has too many in flight,
   * or this turn has read its share.
   */
  #opened(socket: Socket): void {
    socket.on('resume', () => {
      if (!this.#mayRead(socket)) stopReading(socket);
    });
    readTurn.track(socket, () => {
      if (this.#mayRead(socket)) resumeReading(socket);
    });
  }
}

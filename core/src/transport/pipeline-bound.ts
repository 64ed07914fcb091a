import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';
import { MAX_IN_FLIGHT_PER_CONNECTION } from './connection-limits.js';
import { clientOf } from './peer-address.js';

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
 * Requests one client (an address, {@link clientOf}) may have in flight over all its connections
 * before they all stop being read, until some are answered. A connection stops at
 * {@link MAX_IN_FLIGHT_PER_CONNECTION} but holds a chunk's worth parsed: 60 connections of one
 * address pipelining `GET /status` held 119,100 requests, 100 of them 690 MB of heap, and the
 * ports allow a client 1,000 connections.
 */
const MAX_IN_FLIGHT_PER_CLIENT = 2048;

/**
 * Requests the connections of every server together may hand over in one turn of the event loop
 * before the others stop being read until the next. A connection stopped at
 * {@link MAX_IN_FLIGHT_PER_CONNECTION} still parses the rest of the chunk in hand, and the event loop
 * reads every connection with bytes waiting in one go: 20 connections pipelining `GET /status`
 * from another process made 31,920 requests in one turn, 460 ms of the thread.
 */
const TURN_REQUESTS = 256;

interface Client {
  inFlight: number;
  readonly connections: Set<Connection>;
}

interface Connection {
  readonly socket: HttpSocket;
  readonly client: Client;
  /** Requests parsed whose answers are not yet written out. */
  inFlight: number;
  open: boolean;
}

/**
 * What the connections of every node:http server of the thread have in flight, by connection and
 * by client, and the requests of this turn of the event loop: which connections may be read.
 * Connections node:http no longer parses (upgraded to WebSocket) are left alone.
 */
class ReadGate {
  readonly #connections = new Map<Socket, Connection>();
  readonly #clients = new Map<string, Client>();
  /** Stopped for the rest of this turn. */
  readonly #held = new Set<Connection>();
  #turnRequests = 0;
  #turnEndScheduled = false;

  open(socket: HttpSocket): Connection {
    const address = clientOf(socket.remoteAddress);
    let client = this.#clients.get(address);
    if (client === undefined) this.#clients.set(address, (client = { inFlight: 0, connections: new Set() }));
    const connection: Connection = { socket, client, inFlight: 0, open: true };
    client.connections.add(connection);
    this.#connections.set(socket, connection);
    // node:http reads a connection again each time an answer's bytes leave for the kernel,
    // whatever it has in flight: its `resume` event comes in the same turn, before any read.
    socket.on('resume', () => {
      if (socket.parser && !this.#mayRead(connection)) stopReading(socket);
    });
    socket.once('close', () => this.#closed(connection, address));
    return connection;
  }

  /**
   * Counts a request of `socket`, and stops reading what has too much in flight, or every other
   * connection once this turn has had its share; undefined, the connection destroyed, past
   * {@link MAX_PARSED_PER_CONNECTION}.
   */
  admit(socket: HttpSocket): Connection | undefined {
    const connection = this.#connections.get(socket) ?? this.open(socket);
    if (connection.inFlight >= MAX_PARSED_PER_CONNECTION) {
      socket.destroy();
      return undefined;
    }
    const { client } = connection;
    connection.inFlight++;
    client.inFlight++;
    this.#countInTurn(connection);
    if (client.inFlight === MAX_IN_FLIGHT_PER_CLIENT) {
      for (const { socket: other } of client.connections) if (other.parser) stopReading(other);
    } else if (connection.inFlight >= MAX_IN_FLIGHT_PER_CONNECTION) stopReading(socket);
    return connection;
  }

  /** An admitted request's answer left: what it held back is read again. */
  answered(connection: Connection): void {
    if (!connection.open) return;
    const { client } = connection;
    connection.inFlight--;
    client.inFlight--;
    if (client.inFlight === MAX_IN_FLIGHT_PER_CLIENT - 1) this.#resumeClient(client);
    else if (connection.inFlight === MAX_IN_FLIGHT_PER_CONNECTION - 1) this.#resume(connection);
  }

  #mayRead(connection: Connection): boolean {
    return (
      connection.inFlight < MAX_IN_FLIGHT_PER_CONNECTION &&
      connection.client.inFlight < MAX_IN_FLIGHT_PER_CLIENT &&
      !this.#held.has(connection)
    );
  }

  #resume(connection: Connection): void {
    if (connection.socket.parser && this.#mayRead(connection)) resumeReading(connection.socket);
  }

  #resumeClient(client: Client): void {
    for (const connection of client.connections) this.#resume(connection);
  }

  #countInTurn(connection: Connection): void {
    if (!this.#turnEndScheduled) {
      this.#turnEndScheduled = true;
      // The check phase follows the reads of this turn and comes before those of the next.
      setImmediate(this.#endTurn);
    }
    if (++this.#turnRequests !== TURN_REQUESTS) return;
    for (const other of this.#connections.values()) {
      if (other === connection || other.socket._paused === true || !other.socket.parser) continue;
      this.#held.add(other);
      stopReading(other.socket);
    }
  }

  readonly #endTurn = (): void => {
    this.#turnEndScheduled = false;
    this.#turnRequests = 0;
    const held = [...this.#held];
    this.#held.clear();
    for (const connection of held) this.#resume(connection);
  };

  /** node:http never finishes, nor closes, the answers queued behind one of a closed connection: their count goes with it. */
  #closed(connection: Connection, address: string): void {
    const { client } = connection;
    connection.open = false;
    this.#connections.delete(connection.socket);
    this.#held.delete(connection);
    client.connections.delete(connection);
    const wasFull = client.inFlight >= MAX_IN_FLIGHT_PER_CLIENT;
    client.inFlight -= connection.inFlight;
    if (client.connections.size === 0) this.#clients.delete(address);
    else if (wasFull && client.inFlight < MAX_IN_FLIGHT_PER_CLIENT) this.#resumeClient(client);
  }
}

/** The node's thread reads for every server. */
const readGate = new ReadGate();

/**
 * Bounds the requests each HTTP connection of a node:http server has in flight (parsed, their
 * answers not yet written out), and each client over all its connections: a client that pipelines
 * slow calls, or never reads its answers, cannot start any number of them. An answer counts until
 * it has left for the kernel, not merely until it is made: node:http holds the answers queued
 * behind one a client does not read in memory, and resuming such a connection as each was made let
 * one client that never read queue 4,400 answers (60 MB) on the native gateway. Besides, all
 * servers' connections together hand over at most {@link TURN_REQUESTS} requests in one turn of
 * the event loop, a chunk's worth past it: the others are read in the next.
 *
 * @example
 * const server = createServer((req, res) => {
 *   if (!pipeline.admit(req, res)) return;
 *   void serve(req, res);
 * });
 * const pipeline = new PipelineBound(server);
 */
export class PipelineBound {
  /** Bounds the connections of `server` from the moment each opens (after a connection cap refused it, none). */
  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      if (!socket.destroyed) readGate.open(socket);
    });
  }

  /**
   * Counts `req` until `res` is written out or closed, and stops reading its connection at
   * {@link MAX_IN_FLIGHT_PER_CONNECTION}, and all its client's at {@link MAX_IN_FLIGHT_PER_CLIENT};
   * past {@link MAX_PARSED_PER_CONNECTION} the connection is destroyed and false returned: the
   * request is not to be served.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const connection = readGate.admit(req.socket);
    if (connection === undefined) return false;
    let left = false;
    const written = (): void => {
      if (left) return;
      left = true;
      readGate.answered(connection);
    };
    res.once('finish', written).once('close', written);
    return true;
  }
}

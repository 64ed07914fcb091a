import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  ClientQuota,
  clientOf,
  jsonKind,
  parseRequestJson,
  type HeldAnswers,
  type UnfinishedRequests,
} from '@evmnode/core';
import { clientTurn } from './client-turn.js';
import { CometRpcError } from './rpc-error.js';
import { requestTarget } from './request-target.js';
import { errorResponse, idOf, INVALID_ID, INVALID_ID_RESPONSE, type JsonRpcId } from './json-rpc-envelope.js';

/** The one event query served: what followers, and cosmjs' `subscribeNewBlock`, subscribe with. */
export const NEW_BLOCK_QUERY = "tm.event='NewBlock'";

/** CometBFT's `max_subscription_clients`: connections with a subscription; each has at most its one query's. */
const MAX_SUBSCRIBERS = 100;
/** Bytes of answers and events a client may leave unread; one slower than that is disconnected, not buffered for. */
const MAX_UNREAD_OUTPUT = 16 * 1024 * 1024;
/** Requests of one client served at once; its connection is not read while this many are in flight. */
const MAX_IN_FLIGHT = 16;
/** The close code of a connection closed for being idle: normal, so that clients take it as an end, not a failure. */
const IDLE_CLOSE_CODE = 1000;

export interface EventSocketsOptions {
  /** The largest message (the gateway's `max_body_bytes`). */
  readonly maxMessageBytes: number;
  /** `[evm] max_client_share`: the share of the {@link MAX_SUBSCRIBERS} places one client may hold. */
  readonly clientShare: number;
  /** How long a connection without a subscription stays open with no request (`[evm] idle_timeout`; 0: for ever). */
  readonly idleTimeoutMs: number;
  readonly heldAnswers: HeldAnswers;
  readonly unfinished: UnfinishedRequests;
}

/** One `/websocket` connection. */
interface EventConnection {
  readonly socket: WebSocket;
  /** Its remote address, as `clientOf` gives it. */
  readonly client: string;
  /** Its subscriptions: query, and the id of the request that made it. */
  readonly subscriptions: Map<string, JsonRpcId>;
  inFlight: number;
  idleTimer: NodeJS.Timeout | undefined;
}

/** The query of `subscribe`/`unsubscribe` params, named or positional. */
function queryOf(params: unknown): string {
  const query: unknown = Array.isArray(params) ? params[0] : (params as { query?: unknown } | undefined)?.query;
  if (typeof query !== 'string') throw CometRpcError.invalidParams('expected a query string');
  return query.trim();
}

/**
 * CometBFT's WebSocket endpoint (`/websocket`): every gateway method, plus `subscribe`,
 * `unsubscribe` and `unsubscribe_all` for new-block events. An event goes to each subscriber as
 * an answer to its `subscribe` request's id, as CometBFT sends them. As there, a message is one
 * request (a batch is a parse error) and a notification (no id) is not served.
 *
 * The port's connection limits bound the connections; as CometBFT's `max_subscription_clients`,
 * {@link MAX_SUBSCRIBERS} counts only those that subscribe, so connections that never do cannot
 * take the subscribers' places. One without a subscription is closed once idle for `idleTimeoutMs`.
 */
export class EventSockets {
  readonly #server: WebSocketServer;
  readonly #connections = new Set<EventConnection>();
  #subscribers = 0;
  /** What each client holds of the {@link MAX_SUBSCRIBERS} places. */
  readonly #perClient: ClientQuota;

  constructor(
    private readonly options: EventSocketsOptions,
    private readonly answer: (request: unknown, client: string) => Promise<object | undefined>,
  ) {
    this.#server = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
    this.#perClient = new ClientQuota(MAX_SUBSCRIBERS, options.clientShare);
  }

  /** Serves `/websocket` upgrades of `http`; other paths get 404. */
  attach(http: Server): void {
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (requestTarget(req)?.pathname !== '/websocket') {
        socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
        return;
      }
      const client = clientOf(req.socket.remoteAddress);
      this.#server.handleUpgrade(req, socket, head, (webSocket) => {
        this.options.unfinished.guardWs(webSocket, socket);
        this.#open(webSocket, client);
      });
    });
  }

  /** Whether a client subscribed to `query`: its events are built only then. */
  wants(query: string): boolean {
    for (const { subscriptions } of this.#connections) if (subscriptions.has(query)) return true;
    return false;
  }

  /** Sends an event to every subscriber of `query`; its data is serialised once. */
  publish(query: string, type: string, data: object): void {
    const result = `"result":{"query":${JSON.stringify(query)},"data":${JSON.stringify(data)},"events":{"tm.event":[${JSON.stringify(type)}]}}`;
    for (const { socket, subscriptions } of this.#connections) {
      if (!subscriptions.has(query)) continue;
      this.#send(socket, `{"jsonrpc":"2.0","id":${JSON.stringify(subscriptions.get(query))},${result}}`);
    }
  }

  close(): void {
    for (const { socket } of this.#connections) socket.terminate();
  }

  /** Sends `text`, or disconnects a client that has left too much unread. */
  #send(socket: WebSocket, text: string): void {
    if (socket.bufferedAmount > MAX_UNREAD_OUTPUT) socket.terminate();
    else this.options.heldAnswers.sendWs(socket, text);
  }

  #open(socket: WebSocket, client: string): void {
    const connection: EventConnection = {
      socket,
      client,
      subscriptions: new Map(),
      inFlight: 0,
      idleTimer: undefined,
    };
    this.#connections.add(connection);
    this.#armIdleClose(connection);
    socket.on('close', () => {
      clearTimeout(connection.idleTimer);
      this.#connections.delete(connection);
      if (connection.subscriptions.size > 0) this.#leavePlace(connection);
    });
    socket.on('error', () => socket.terminate());
    socket.on('message', (data: Buffer) => {
      clearTimeout(connection.idleTimer);
      if (++connection.inFlight >= MAX_IN_FLIGHT) socket.pause();
      Promise.resolve(clientTurn(client))
        .then(() => this.#onMessage(connection, data))
        .then(
          (answer) => {
            if (answer !== undefined) this.#send(socket, JSON.stringify(answer));
          },
          () => socket.terminate(),
        )
        .finally(() => {
          if (connection.inFlight-- === MAX_IN_FLIGHT) socket.resume();
          this.#armIdleClose(connection);
        });
    });
  }

  /** Closes `connection` after the idle time, unless it subscribes or sends a request meanwhile. */
  #armIdleClose(connection: EventConnection): void {
    const { idleTimeoutMs } = this.options;
    const busy = connection.inFlight > 0 || connection.subscriptions.size > 0;
    if (idleTimeoutMs === 0 || busy || !this.#connections.has(connection)) return;
    clearTimeout(connection.idleTimer);
    connection.idleTimer = setTimeout(() => connection.socket.close(IDLE_CLOSE_CODE, 'idle'), idleTimeoutMs);
    connection.idleTimer.unref();
  }

  /** Takes one of the {@link MAX_SUBSCRIBERS} places for a connection's first subscription, or throws CometBFT's refusal. */
  #takePlace(connection: EventConnection): void {
    if (this.#subscribers >= MAX_SUBSCRIBERS) {
      throw CometRpcError.internal(`max_subscription_clients ${MAX_SUBSCRIBERS} reached`);
    }
    if (!this.#perClient.tryAcquire(connection.client)) {
      throw CometRpcError.internal(
        `max_subscription_clients ${MAX_SUBSCRIBERS}: this client holds its share (${this.#perClient.perClient}) of them`,
      );
    }
    this.#subscribers++;
  }

  /** Gives back the place of a connection whose last subscription ended. */
  #leavePlace(connection: EventConnection): void {
    this.#subscribers--;
    this.#perClient.release(connection.client);
  }

  async #onMessage(connection: EventConnection, data: Buffer): Promise<object | undefined> {
    let request: unknown;
    try {
      request = await parseRequestJson(data);
    } catch (error) {
      return errorResponse(null, CometRpcError.unreadable(error));
    }
    if (typeof request !== 'object' || Array.isArray(request)) {
      const detail = `json: cannot unmarshal ${jsonKind(request)} into Go value of type types.RPCRequest`;
      return errorResponse(null, CometRpcError.parseError(`error unmarshaling request: ${detail}`));
    }
    const id = idOf(request);
    if (id === undefined) return undefined;
    if (id === INVALID_ID) return INVALID_ID_RESPONSE;
    const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
    if (method !== 'subscribe' && method !== 'unsubscribe' && method !== 'unsubscribe_all')
      return this.answer(request, connection.client);
    // A connection closed while its message was read holds no place: it would never give it back.
    if (!this.#connections.has(connection)) return undefined;
    const { subscriptions } = connection;
    try {
      if (method === 'subscribe') {
        const query = queryOf(params);
        if (query !== NEW_BLOCK_QUERY)
          throw CometRpcError.internal(
            `this node's subscribe takes only the query ${NEW_BLOCK_QUERY}, got ${JSON.stringify(query)}`,
          );
        if (subscriptions.has(query)) throw CometRpcError.internal('already subscribed');
        if (subscriptions.size === 0) this.#takePlace(connection);
        subscriptions.set(query, id);
      } else {
        const subscribed = subscriptions.size > 0;
        if (method === 'unsubscribe_all') subscriptions.clear();
        else if (!subscriptions.delete(queryOf(params))) throw CometRpcError.internal('subscription not found');
        if (subscribed && subscriptions.size === 0) this.#leavePlace(connection);
      }
      return { jsonrpc: '2.0', id, result: {} };
    } catch (error) {
      return errorResponse(
        id,
        error instanceof CometRpcError ? error : CometRpcError.internal((error as Error).message),
      );
    }
  }
}

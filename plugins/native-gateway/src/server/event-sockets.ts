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
import { CometRpcError } from './rpc-error.js';
import { requestTarget } from './request-target.js';
import { errorResponse, idOf, INVALID_ID, INVALID_ID_RESPONSE, type JsonRpcId } from './json-rpc-envelope.js';

/** The one event query served: what followers, and cosmjs' `subscribeNewBlock`, subscribe with. */
export const NEW_BLOCK_QUERY = "tm.event='NewBlock'";

/** CometBFT's `max_subscription_clients`; each has at most its one query's subscription. */
const MAX_CLIENTS = 100;
/** Bytes of answers and events a client may leave unread; one slower than that is disconnected, not buffered for. */
const MAX_UNREAD_OUTPUT = 16 * 1024 * 1024;
/** Requests of one client served at once; its connection is not read while this many are in flight. */
const MAX_IN_FLIGHT = 16;

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
 */
export class EventSockets {
  readonly #server: WebSocketServer;
  /** Each client's subscriptions: query, and the id of the request that made it. */
  readonly #clients = new Map<WebSocket, Map<string, JsonRpcId>>();
  /** What each client (`clientOf` its address) holds of the {@link MAX_CLIENTS} connections. */
  readonly #perClient: ClientQuota;

  constructor(
    maxMessageBytes: number,
    clientShare: number,
    private readonly heldAnswers: HeldAnswers,
    private readonly unfinished: UnfinishedRequests,
    private readonly answer: (request: unknown) => Promise<object | undefined>,
  ) {
    this.#server = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes });
    this.#perClient = new ClientQuota(MAX_CLIENTS, clientShare);
  }

  /**
   * Serves `/websocket` upgrades of `http`; other paths, connections beyond the limit, and those of
   * a client holding its share of it (`max_client_share`, so that one client cannot take every
   * follower's place), are refused.
   */
  attach(http: Server): void {
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = requestTarget(req)?.pathname;
      const client = clientOf(req.socket.remoteAddress);
      const refusal =
        path !== '/websocket'
          ? '404 Not Found'
          : this.#clients.size >= MAX_CLIENTS || !this.#perClient.tryAcquire(client)
            ? '503 Service Unavailable'
            : '';
      if (refusal !== '') {
        socket.end(`HTTP/1.1 ${refusal}\r\nconnection: close\r\n\r\n`);
        return;
      }
      socket.once('close', () => this.#perClient.release(client));
      this.#server.handleUpgrade(req, socket, head, (client) => {
        this.unfinished.guardWs(client, socket);
        this.#open(client);
      });
    });
  }

  /** Whether a client subscribed to `query`: its events are built only then. */
  wants(query: string): boolean {
    for (const subscriptions of this.#clients.values()) if (subscriptions.has(query)) return true;
    return false;
  }

  /** Sends an event to every subscriber of `query`; its data is serialised once. */
  publish(query: string, type: string, data: object): void {
    const result = `"result":{"query":${JSON.stringify(query)},"data":${JSON.stringify(data)},"events":{"tm.event":[${JSON.stringify(type)}]}}`;
    for (const [client, subscriptions] of this.#clients) {
      if (!subscriptions.has(query)) continue;
      this.#send(client, `{"jsonrpc":"2.0","id":${JSON.stringify(subscriptions.get(query))},${result}}`);
    }
  }

  close(): void {
    for (const client of this.#clients.keys()) client.terminate();
  }

  /** Sends `text`, or disconnects a client that has left too much unread. */
  #send(client: WebSocket, text: string): void {
    if (client.bufferedAmount > MAX_UNREAD_OUTPUT) client.terminate();
    else this.heldAnswers.sendWs(client, text);
  }

  #open(client: WebSocket): void {
    const subscriptions = new Map<string, JsonRpcId>();
    this.#clients.set(client, subscriptions);
    client.on('close', () => this.#clients.delete(client));
    client.on('error', () => client.terminate());
    let inFlight = 0;
    client.on('message', (data: Buffer) => {
      if (++inFlight >= MAX_IN_FLIGHT) client.pause();
      this.#onMessage(subscriptions, data)
        .then(
          (answer) => {
            if (answer !== undefined) this.#send(client, JSON.stringify(answer));
          },
          () => client.terminate(),
        )
        .finally(() => {
          if (inFlight-- === MAX_IN_FLIGHT) client.resume();
        });
    });
  }

  async #onMessage(subscriptions: Map<string, JsonRpcId>, data: Buffer): Promise<object | undefined> {
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
    if (method !== 'subscribe' && method !== 'unsubscribe' && method !== 'unsubscribe_all') return this.answer(request);
    try {
      if (method === 'unsubscribe_all') subscriptions.clear();
      else if (method === 'unsubscribe') {
        if (!subscriptions.delete(queryOf(params))) throw CometRpcError.internal('subscription not found');
      } else {
        const query = queryOf(params);
        if (query !== NEW_BLOCK_QUERY)
          throw CometRpcError.internal(
            `this node's subscribe takes only the query ${NEW_BLOCK_QUERY}, got ${JSON.stringify(query)}`,
          );
        if (subscriptions.has(query)) throw CometRpcError.internal('already subscribed');
        subscriptions.set(query, id);
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

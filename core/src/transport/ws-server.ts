import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { inject, injectable } from '../di/decorators.js';
import { WebSocketServer, type RawData, type VerifyClientCallbackAsync, type WebSocket } from 'ws';
import { MAX_IN_FLIGHT_PER_CONNECTION } from './connection-limits.js';
import { CLIENT_GONE, httpServerOptions, limitConnections } from './http-server.js';
import { clientOf } from './peer-address.js';
import type { HeldAnswers } from './held-answers.js';
import type { UnfinishedRequests } from './unfinished-requests.js';
import { WsConnection } from './ws-connection.js';
import { hostCheck, INVALID_HOST } from './virtual-hosts.js';
import type { CoreConfig } from '../config/core-schema.js';
import type { KeyRing } from '../keys/key-ring.js';
import { CoreTokens } from '../node/core-tokens.js';
import { InternalTokens } from '../node/internal-tokens.js';
import { Dispatcher } from '../rpc/dispatcher.js';
import { readRequestJsonInTurn } from '../rpc/request-json.js';
import { RpcRequest } from '../rpc/rpc-request.js';

const UPGRADE_REQUIRED = STATUS_CODES[426]!;

/**
 * JSON-RPC over WebSocket: one dispatcher for every message, batches included; a connection with
 * {@link MAX_IN_FLIGHT_PER_CONNECTION} messages in flight stops being read. ws handles the
 * upgrades of a node:http server of ours, which caps connections and times out silent ones as the
 * HTTP port does, and answers plain HTTP requests with 426 as ws's own server would.
 */
@injectable()
export class WsTransport {
  #http: Server | undefined;
  #server: WebSocketServer | undefined;
  #nextConnectionId = 0;
  #nextMessageId = 0;

  constructor(
    @inject(InternalTokens.Dispatcher) private readonly dispatcher: Dispatcher,
    @inject(CoreTokens.Config) private readonly config: CoreConfig,
    @inject(CoreTokens.Logger) private readonly logger: Logger,
    @inject(CoreTokens.KeyRing) private readonly keys: KeyRing,
    @inject(CoreTokens.HeldAnswers) private readonly heldAnswers: HeldAnswers,
    @inject(CoreTokens.UnfinishedRequests) private readonly unfinished: UnfinishedRequests,
  ) {}

  listen(): Promise<AddressInfo> {
    const { ws_port, listen_address, max_request_body_bytes, ws_origins, vhosts } = this.config.evm;
    const hostAllowed = hostCheck(vhosts, this.keys);
    const verifyClient: VerifyClientCallbackAsync = ({ origin, req }, accept) => {
      if (!hostAllowed(req.headers.host)) return accept(false, 403, INVALID_HOST);
      // ws types the origin as always present; a client that is no browser sends none.
      const sent = origin as string | undefined;
      accept(ws_origins.includes('*') || sent === undefined || ws_origins.includes(sent));
    };
    const http = createServer(httpServerOptions(this.config), (_req, res) => {
      res.writeHead(426, ['Content-Type', 'text/plain', 'Content-Length', String(UPGRADE_REQUIRED.length)]);
      res.end(UPGRADE_REQUIRED);
    });
    limitConnections(http, this.config);
    const server = new WebSocketServer({
      server: http,
      // ws's default is 100 MiB; larger frames close the connection with 1009.
      maxPayload: max_request_body_bytes,
      verifyClient,
    });
    server.on('connection', (socket, req) => {
      this.unfinished.guardWs(socket, req.socket);
      this.#accept(socket, req.socket, clientOf(req.socket.remoteAddress), req.headers.origin);
    });
    this.#http = http;
    this.#server = server;
    return new Promise((resolve, reject) => {
      http.once('error', reject);
      http.listen(ws_port, listen_address, () => {
        http.off('error', reject);
        resolve(http.address() as AddressInfo);
      });
    });
  }

  /** Closes every connection (1001, going away) and stops listening. */
  async close(): Promise<void> {
    const server = this.#server;
    const http = this.#http;
    if (server === undefined || http === undefined) return;
    for (const client of server.clients) client.close(1001, 'server shutting down');
    const closed = new Promise<void>((resolve) => http.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const client of server.clients) client.terminate();
    http.closeAllConnections();
    await closed;
  }

  /**
   * `client` (`clientOf` the peer's address) and `origin` are the upgrade request's: every message
   * of the connection comes from that client and page. A client's connections share its shares.
   */
  #accept(socket: WebSocket, upgraded: Duplex, client: string, origin: string | undefined): void {
    const connection = new WsConnection(`ws-${++this.#nextConnectionId}`, socket, upgraded, this.heldAnswers);
    const running = new Set<RpcRequest>();
    let inFlight = 0;
    socket.on('message', (data) => {
      if (++inFlight === MAX_IN_FLIGHT_PER_CONNECTION) socket.pause();
      void this.#serve(connection, client, origin, data, running).finally(() => {
        if (inFlight-- === MAX_IN_FLIGHT_PER_CONNECTION) socket.resume();
      });
    });
    socket.on('error', (error) => this.logger.debug({ err: error, connection: connection.id }, 'WebSocket error'));
    socket.on('close', () => {
      connection.closed();
      // Calls still running stop where they can, as over HTTP: their answers would go nowhere.
      for (const request of running) request.abort(CLIENT_GONE);
    });
  }

  /** Answers one message; its request is in `running` while its calls run. Resolves once answered. */
  #serve(
    connection: WsConnection,
    client: string,
    origin: string | undefined,
    data: RawData,
    running: Set<RpcRequest>,
  ): Promise<void> {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    return new Promise((answered) => {
      readRequestJsonInTurn(
        bytes,
        client,
        (body, text) => answered(this.#dispatch(connection, client, origin, body, text, running)),
        (error) => {
          connection.send(Dispatcher.unreadable(error));
          answered();
        },
      );
    });
  }

  async #dispatch(
    connection: WsConnection,
    client: string,
    origin: string | undefined,
    body: unknown,
    text: string,
    running: Set<RpcRequest>,
  ): Promise<void> {
    const requestId = `${connection.id}-${++this.#nextMessageId}`;
    const request = new RpcRequest('ws', requestId, connection, client, origin);
    running.add(request);
    try {
      const answer = await this.dispatcher.dispatch(body, text, request);
      if (answer !== undefined) connection.send(answer);
    } catch (error) {
      // As an HTTP request's 500: the client hears of it, and the failure never goes unhandled (which would stop the node).
      this.logger.error({ err: error, connection: connection.id }, 'WebSocket request failed');
      connection.send(Dispatcher.INTERNAL_ERROR);
    } finally {
      running.delete(request);
    }
  }
}

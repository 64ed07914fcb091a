import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { inject, injectable } from '../di/decorators.js';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { WsConnection } from './ws-connection.js';
import type { CoreConfig } from '../config/core-schema.js';
import { CoreTokens } from '../node/core-tokens.js';
import { InternalTokens } from '../node/internal-tokens.js';
import { Dispatcher } from '../rpc/dispatcher.js';
import { RpcRequest } from '../rpc/rpc-request.js';

/** JSON-RPC over WebSocket: one dispatcher for every message, batches included. */
@injectable()
export class WsTransport {
  #server: WebSocketServer | undefined;
  #nextConnectionId = 0;
  #nextMessageId = 0;

  constructor(
    @inject(InternalTokens.Dispatcher) private readonly dispatcher: Dispatcher,
    @inject(CoreTokens.Config) private readonly config: CoreConfig,
    @inject(CoreTokens.Logger) private readonly logger: Logger,
  ) {}

  listen(): Promise<AddressInfo> {
    const { ws_port, listen_address, max_request_body_bytes, ws_origins } = this.config.evm;
    return new Promise((resolve, reject) => {
      const server = new WebSocketServer({
        host: listen_address,
        port: ws_port,
        // ws's default is 100 MiB; larger frames close the connection with 1009.
        maxPayload: max_request_body_bytes,
        verifyClient: ({ origin }: { origin: string | undefined }) =>
          ws_origins.includes('*') || origin === undefined || ws_origins.includes(origin),
      });
      server.once('error', reject);
      server.once('listening', () => {
        server.off('error', reject);
        resolve(server.address() as AddressInfo);
      });
      server.on('connection', (socket) => this.#accept(socket));
      this.#server = server;
    });
  }

  /** Closes every connection (1001, going away) and stops listening. */
  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    for (const client of server.clients) client.close(1001, 'server shutting down');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const client of server.clients) client.terminate();
  }

  #accept(socket: WebSocket): void {
    const connection = new WsConnection(`ws-${++this.#nextConnectionId}`, socket);
    socket.on('message', (data) => void this.#serve(connection, data));
    socket.on('error', (error) => this.logger.debug({ err: error, connection: connection.id }, 'WebSocket error'));
    socket.on('close', () => {
      connection.closed();
    });
  }

  async #serve(connection: WsConnection, data: RawData): Promise<void> {
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.from(data as ArrayBuffer).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      connection.send(Dispatcher.PARSE_ERROR);
      return;
    }
    const request = new RpcRequest('ws', `${connection.id}-${++this.#nextMessageId}`, connection, connection.id);
    const answer = await this.dispatcher.dispatch(body, text, request);
    if (answer !== undefined) connection.send(answer);
  }
}

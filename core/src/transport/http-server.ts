import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { allowedOrigin } from './cors-policy.js';
import { RpcConnection, type ConnectionHost } from './rpc-connection.js';
import { RpcPostService, type PostAnswer, type PostHeaders } from './rpc-post.js';
import { hostCheck, INVALID_HOST, type HostCheck } from './virtual-hosts.js';
import type { CoreConfig } from '../config/core-schema.js';
import { inject, injectable } from '../di/decorators.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { Metrics } from '../metrics/metrics.js';
import { CoreTokens } from '../node/core-tokens.js';
import { InternalTokens } from '../node/internal-tokens.js';
import { Dispatcher } from '../rpc/dispatcher.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * HTTP: JSON-RPC on POST (any path, as geth), and a koa application for everything else: the
 * load-balancer probe on GET /, /health, Prometheus /metrics, CORS preflight and 405s.
 *
 * Connections start on the JSON-RPC fast path ({@link RpcConnection}); the first request of
 * another method hands its connection to a node:http server, which serves it from then on, POSTs
 * included (through the same {@link RpcPostService}). koa is loaded with the first such request:
 * its modules would add about 60 ms to every start.
 */
@injectable()
export class HttpTransport implements ConnectionHost {
  readonly #listener: NetServer;
  readonly #http: Server;
  readonly service: RpcPostService;
  readonly #hostAllowed: HostCheck;
  readonly readTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly #connections = new Set<RpcConnection>();
  #operator: Promise<RequestListener> | undefined;
  #inFlight = 0;
  #drained: (() => void) | undefined;

  constructor(
    @inject(InternalTokens.Dispatcher) dispatcher: Dispatcher,
    @inject(CoreTokens.Config) private readonly config: CoreConfig,
    @inject(CoreTokens.Logger) private readonly logger: Logger,
    @inject(CoreTokens.Metrics) private readonly metrics: Metrics | null,
    @inject(CoreTokens.KeyRing) keys: KeyRing,
  ) {
    this.#hostAllowed = hostCheck(config.evm.vhosts, keys);
    this.service = new RpcPostService(dispatcher, {
      bodyLimit: config.evm.max_request_body_bytes,
      corsOrigins: config.evm.cors_origins,
      parseError: Dispatcher.PARSE_ERROR,
      hostAllowed: this.#hostAllowed,
    });
    this.readTimeoutMs = config.evm.read_timeout;
    this.idleTimeoutMs = config.evm.idle_timeout;
    this.#listener = createNetServer((socket) => this.#connections.add(new RpcConnection(socket, this)));
    this.#http = createServer((req, res) => this.#serve(req, res));
    this.#http.requestTimeout = config.evm.read_timeout;
    this.#http.headersTimeout = Math.min(config.evm.read_timeout, 60_000);
    this.#http.keepAliveTimeout = config.evm.idle_timeout;
  }

  /** Starts listening; resolves to the bound address (port 0 picks a free one). */
  listen(): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#listener.once('error', reject);
      this.#listener.listen(this.config.evm.http_port, this.config.evm.listen_address, () => {
        this.#listener.off('error', reject);
        // node:http tracks its connections (for the read timeouts and closing) from 'listening'
        // on; it is handed connections rather than accepting them.
        this.#http.emit('listening');
        resolve(this.#listener.address() as AddressInfo);
      });
    });
  }

  /** Stops accepting, lets in-flight requests finish (up to `timeoutMs`), then closes every connection. */
  async close(timeoutMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#listener.close(() => resolve()));
    for (const connection of this.#connections) connection.close();
    this.#http.closeIdleConnections();
    if (this.#inFlight > 0) {
      const drained = new Promise<void>((resolve) => (this.#drained = resolve));
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    }
    this.#http.closeAllConnections();
    this.#http.close(() => undefined);
    for (const connection of this.#connections) connection.close(true);
    await closed;
  }

  handOff(socket: Socket, unread: Buffer): void {
    socket.unshift(unread);
    this.#http.emit('connection', socket);
  }

  requestStarted(): void {
    this.#inFlight++;
  }

  requestFinished(): void {
    if (--this.#inFlight === 0) this.#drained?.();
  }

  failed(error: Error): void {
    this.logger.error({ err: error }, 'HTTP request failed');
  }

  closed(connection: RpcConnection): void {
    this.#connections.delete(connection);
  }

  /** A request on a handed-off connection. */
  #serve(req: IncomingMessage, res: ServerResponse): void {
    this.requestStarted();
    let done = false;
    const finished = (error?: Error): void => {
      if (done) return;
      done = true;
      if (error !== undefined) {
        this.failed(error);
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      }
      this.requestFinished();
    };
    if (req.method === 'POST') this.#servePost(req, res, finished);
    else this.#serveOperator(req, res).then(() => finished(), finished);
  }

  #servePost(req: IncomingMessage, res: ServerResponse, finished: (error?: Error) => void): void {
    const headers: PostHeaders = {
      contentLength: req.headers['content-length'],
      contentType: req.headers['content-type'],
      origin: req.headers.origin,
      host: req.headers.host,
      acceptEncoding: req.headers['accept-encoding'],
      requestId: req.headers['x-request-id'] as string | undefined,
      remoteAddress: req.socket.remoteAddress,
    };
    const write = (answer: PostAnswer | Error): void => {
      if (answer instanceof Error) return finished(answer);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
      finished();
    };
    const refusal = this.service.refusal(headers);
    if (refusal !== undefined) return write(refusal);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > this.service.bodyLimit) {
        req.removeAllListeners('data');
        write(this.service.tooLarge(headers));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size <= this.service.bodyLimit) this.service.answer(Buffer.concat(chunks), headers, write);
    });
    // A client that went away has nothing to answer.
    req.on('error', () => finished());
  }

  async #serveOperator(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.#operator ??= this.#operatorApp().then((app) => app.callback());
    return (await this.#operator)(req, res);
  }

  async #operatorApp(): Promise<Koa> {
    const [{ default: Koa }, { default: cors }, { default: compress }] = await Promise.all([
      import('koa'),
      import('@koa/cors'),
      import('koa-compress'),
    ]);
    const app = new Koa();
    app.silent = true;
    // Before CORS, as geth wraps its CORS handler in the Host check.
    app.use(async (ctx, next) => {
      if (this.#hostAllowed(ctx.get('Host'))) {
        await next();
        return;
      }
      ctx.status = 403;
      ctx.body = INVALID_HOST;
    });
    app.use(cors({ origin: (ctx) => allowedOrigin(this.config.evm.cors_origins, ctx.get('Origin')) }));
    app.use(compress({ br: false }));
    app.use(async (ctx) => {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        ctx.status = 405;
        ctx.body = 'method not allowed';
        return;
      }
      if (ctx.path === '/metrics' && this.metrics !== null) {
        ctx.type = this.metrics.registry.contentType;
        ctx.body = await this.metrics.registry.metrics();
      } else if (ctx.path === '/health') {
        ctx.body = { status: 'ok' };
      } else if (ctx.path === '/' && !ctx.request.length) {
        // geth answers a bare GET with 200 so that load balancers can probe the RPC port.
        ctx.status = 200;
        ctx.body = '';
      } else {
        ctx.status = 404;
      }
    });
    return app;
  }
}

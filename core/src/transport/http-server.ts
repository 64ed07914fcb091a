import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { allowedOrigin } from './cors-policy.js';
import { RpcPostHandler, type RequestFinished } from './rpc-post.js';
import type { CoreConfig } from '../config/core-schema.js';
import { inject, injectable } from '../di/decorators.js';
import type { Metrics } from '../metrics/metrics.js';
import { CoreTokens } from '../node/core-tokens.js';
import { InternalTokens } from '../node/internal-tokens.js';
import { Dispatcher } from '../rpc/dispatcher.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * HTTP: JSON-RPC on POST (any path, as geth), and a koa application for everything else: the
 * load-balancer probe on GET /, /health, Prometheus /metrics, CORS preflight and 405s. koa is
 * loaded with the first such request: its modules would add about 60 ms to every start.
 */
@injectable()
export class HttpTransport {
  readonly #server: Server;
  readonly #rpc: RpcPostHandler;
  #operator: Promise<RequestListener> | undefined;
  #inFlight = 0;
  #drained: (() => void) | undefined;

  constructor(
    @inject(InternalTokens.Dispatcher) dispatcher: Dispatcher,
    @inject(CoreTokens.Config) private readonly config: CoreConfig,
    @inject(CoreTokens.Logger) private readonly logger: Logger,
    @inject(CoreTokens.Metrics) private readonly metrics: Metrics | null,
  ) {
    this.#rpc = new RpcPostHandler(dispatcher, {
      bodyLimit: config.evm.max_request_body_bytes,
      corsOrigins: config.evm.cors_origins,
      parseError: Dispatcher.PARSE_ERROR,
    });
    this.#server = createServer((req, res) => this.#serve(req, res));
    this.#server.requestTimeout = config.evm.read_timeout;
    this.#server.headersTimeout = Math.min(config.evm.read_timeout, 60_000);
    this.#server.keepAliveTimeout = config.evm.idle_timeout;
  }

  /** Starts listening; resolves to the bound address (port 0 picks a free one). */
  listen(): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.config.evm.http_port, this.config.evm.listen_address, () => {
        this.#server.off('error', reject);
        resolve(this.#server.address() as AddressInfo);
      });
    });
  }

  /** Stops accepting, lets in-flight requests finish (up to `timeoutMs`), then closes every connection. */
  async close(timeoutMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeIdleConnections();
    if (this.#inFlight > 0) {
      const drained = new Promise<void>((resolve) => (this.#drained = resolve));
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    }
    this.#server.closeAllConnections();
    await closed;
  }

  #serve(req: IncomingMessage, res: ServerResponse): void {
    this.#inFlight++;
    let done = false;
    const finished: RequestFinished = (error) => {
      if (done) return;
      done = true;
      if (error !== undefined) {
        this.logger.error({ err: error }, 'HTTP request failed');
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      }
      if (--this.#inFlight === 0) this.#drained?.();
    };
    if (req.method === 'POST') this.#rpc.handle(req, res, finished);
    else this.#serveOperator(req, res).then(() => finished(), finished);
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

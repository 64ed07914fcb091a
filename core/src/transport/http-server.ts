import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { ConnectionLimits } from './connection-limits.js';
import { PipelineBound } from './pipeline-bound.js';
import { allowedOrigin } from './cors-policy.js';
import { RpcPostService, type PostAnswer, type PostHeaders } from './rpc-post.js';
import type { HeldAnswers } from './held-answers.js';
import type { UnfinishedRequests } from './unfinished-requests.js';
import { hostCheck, INVALID_HOST, type HostCheck } from './virtual-hosts.js';
import type { CoreConfig } from '../config/core-schema.js';
import { ResourceUnavailableError } from '../errors/rpc-error.js';
import { inject, injectable } from '../di/decorators.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { Metrics } from '../metrics/metrics.js';
import { CoreTokens } from '../node/core-tokens.js';
import { InternalTokens } from '../node/internal-tokens.js';
import type { HealthCheck } from '../node/health.js';
import { Dispatcher } from '../rpc/dispatcher.js';
import type { ResponseBody } from '../rpc/response-text.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The limit on a request line and its headers together (431 beyond), as node:http's default. */
const MAX_HEADER_BYTES = 16 * 1024;

const BAD_TARGET_TEXT = 'malformed request target\n';
/** Why a call stops whose client closed its connection: answered to nobody. */
export const CLIENT_GONE = new ResourceUnavailableError('the client closed its connection');
const BAD_TARGET = ['Content-Type', 'text/plain; charset=utf-8', 'Connection', 'close'];

/**
 * True for a request target the server can answer: a path (origin form), an absolute URL, or `*`.
 * A `%` must start an escape. Go's server (geth) refuses the others with 400, and koa's URL
 * parsing throws on some of them.
 */
export function isValidTarget(target: string): boolean {
  if (target === '/' || target === '*') return true;
  if (/%(?![0-9a-fA-F]{2})/.test(target)) return false;
  if (target.startsWith('/')) return true;
  return URL.canParse(target);
}

/**
 * The server options that make node:http (llhttp, strict) the one HTTP parser: it answers
 * malformed framing with 400, oversized heads with 431, and with 408 a head not read whole within
 * `min(read_timeout, 60 s)` of the connection or the request's start (a connection that sends
 * nothing included) and a request not read whole within `read_timeout`; then it closes the
 * connection.
 */
export function httpServerOptions(config: CoreConfig): Parameters<typeof createServer>[0] {
  const headersTimeout = Math.min(config.evm.read_timeout, 60_000);
  return {
    insecureHTTPParser: false,
    maxHeaderSize: MAX_HEADER_BYTES,
    requestTimeout: config.evm.read_timeout,
    headersTimeout,
    // How often the two timeouts above are checked (node's default is every 30 s).
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.ceil(headersTimeout / 2))),
    keepAliveTimeout: config.evm.idle_timeout,
  };
}

/** Ends `res` with `body`; a body in pieces goes out as they are, in one write, never joined. */
function endWith(res: ServerResponse, body: ResponseBody): void {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  res.cork();
  for (const part of body) res.write(part);
  res.end();
}

/** Caps `server`'s connections by `[evm] max_open_connections` and `max_connections_per_ip`. */
export function limitConnections(server: Server, config: CoreConfig): void {
  new ConnectionLimits({
    maxOpen: config.evm.max_open_connections,
    maxPerAddress: config.evm.max_connections_per_ip,
  }).attach(server);
}

/**
 * HTTP on node:http: JSON-RPC on POST (any path, as geth) through {@link RpcPostService}, and a
 * koa application for everything else: the load-balancer probe on GET /, /health, Prometheus
 * /metrics, CORS preflight and 405s. koa is loaded with the first such request: its modules would
 * add about 60 ms to every start. node:http keeps pipelined answers in order and stops reading a
 * connection whose answers are not read (it pauses the socket until they drain); slow answers
 * queue no output, so a connection also stops being read while it has many requests in flight
 * ({@link PipelineBound}).
 */
@injectable()
export class HttpTransport {
  readonly #server: Server;
  readonly #service: RpcPostService;
  readonly #hostAllowed: HostCheck;
  /** Requests in flight per connection. */
  readonly #pipeline: PipelineBound;
  #operator: Promise<RequestListener> | undefined;
  #inFlight = 0;
  #drained: (() => void) | undefined;

  constructor(
    @inject(InternalTokens.Dispatcher) dispatcher: Dispatcher,
    @inject(CoreTokens.Config) private readonly config: CoreConfig,
    @inject(CoreTokens.Logger) private readonly logger: Logger,
    @inject(CoreTokens.Metrics) private readonly metrics: Metrics | null,
    @inject(CoreTokens.KeyRing) keys: KeyRing,
    @inject(InternalTokens.Health) private readonly health: HealthCheck,
    @inject(CoreTokens.HeldAnswers) private readonly heldAnswers: HeldAnswers,
    @inject(CoreTokens.UnfinishedRequests) private readonly unfinished: UnfinishedRequests,
  ) {
    this.#hostAllowed = hostCheck(config.evm.vhosts, keys);
    this.#service = new RpcPostService(dispatcher, {
      bodyLimit: config.evm.max_request_body_bytes,
      corsOrigins: config.evm.cors_origins,
      unreadable: (error) => Dispatcher.unreadable(error),
      hostAllowed: this.#hostAllowed,
    });
    this.#server = createServer(httpServerOptions(config), (req, res) => this.#serve(req, res));
    limitConnections(this.#server, config);
    this.#pipeline = new PipelineBound(this.#server);
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
    if (!isValidTarget(req.url ?? '')) {
      res.writeHead(400, [...BAD_TARGET, 'Content-Length', String(BAD_TARGET_TEXT.length)]);
      res.end(BAD_TARGET_TEXT);
      return;
    }
    if (!this.#pipeline.admit(req, res)) return;
    this.#inFlight++;
    let done = false;
    const finished = (error?: Error): void => {
      if (done) return;
      done = true;
      if (error !== undefined) {
        this.logger.error({ err: error }, 'HTTP request failed');
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      }
      if (--this.#inFlight === 0) this.#drained?.();
    };
    if (req.method === 'POST') this.#servePost(req, res, finished);
    else this.#serveOperator(req, res).then(() => finished(), finished);
  }

  #servePost(req: IncomingMessage, res: ServerResponse, finished: (error?: Error) => void): void {
    const arrived = Date.now();
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
      endWith(res, answer.body);
      this.heldAnswers.guardHttpAnswer(res, req.socket, arrived + this.config.evm.write_timeout);
      finished();
    };
    const refusal = this.#service.refusal(headers);
    if (refusal !== undefined) return write(refusal);
    let chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    /** Answers a body not read to its end, whose chunks so far are dropped. */
    const refuse = (answer: PostAnswer): void => {
      refused = true;
      req.off('data', onData);
      chunks = [];
      write(answer);
    };
    const count = this.unfinished.httpBody(req, () => refuse(this.#service.busyReceiving(headers)));
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > this.#service.bodyLimit) return refuse(this.#service.tooLarge(headers));
      chunks.push(chunk);
      count(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (refused) return;
      const request = this.#service.answer(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), headers, write);
      // Calls still running for a client that closed its connection stop where they can (traces do), as geth's
      // request context is cancelled.
      res.once('close', () => {
        if (!res.writableEnded) request.abort(CLIENT_GONE);
      });
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
        const { healthy, body } = this.health();
        ctx.status = healthy ? 200 : 503;
        ctx.body = body;
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

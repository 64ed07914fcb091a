import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import cors from '@koa/cors';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import compress from 'koa-compress';
import type { Logger } from 'pino';
import { inject, injectable } from '../di/decorators.js';
import type { CoreConfig } from '../config/core-schema.js';
import { ErrorCode } from '../errors/codes.js';
import type { Metrics } from '../metrics/metrics.js';
import { CoreTokens } from '../node/core-tokens.js';
import { InternalTokens } from '../node/internal-tokens.js';
import { Dispatcher } from '../rpc/dispatcher.js';
import { errorText } from '../rpc/response-text.js';
import { RpcRequest } from '../rpc/rpc-request.js';

/** Content types geth accepts for JSON-RPC over HTTP. */
const JSON_TYPES = ['application/json', 'application/json-rpc', 'application/jsonrequest'];

interface HttpError {
  status?: number;
  type?: string;
}

/** JSON-RPC over HTTP (koa), plus `/health` and Prometheus `/metrics`. */
@injectable()
export class HttpTransport {
  readonly #app = new Koa();
  readonly #server: Server;
  readonly #bodyLimit: number;
  #inFlight = 0;
  #drained: (() => void) | undefined;
  #nextRequestId = 0;

  constructor(
    @inject(InternalTokens.Dispatcher) private readonly dispatcher: Dispatcher,
    @inject(CoreTokens.Config) private readonly config: CoreConfig,
    @inject(CoreTokens.Logger) private readonly logger: Logger,
    @inject(CoreTokens.Metrics) private readonly metrics: Metrics | null,
  ) {
    this.#bodyLimit = config.evm.max_request_body_bytes;
    this.#build();
    const handle = this.#app.callback();
    this.#server = createServer((request, response) => void handle(request, response));
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

  #build(): void {
    const app = this.#app;
    app.proxy = false;
    app.silent = true;
    app.use(async (ctx, next) => {
      this.#inFlight++;
      try {
        await next();
      } catch (error) {
        this.#answerTransportError(ctx, error);
      } finally {
        if (--this.#inFlight === 0) this.#drained?.();
      }
    });
    app.use(cors({ origin: (ctx) => this.#allowedOrigin(ctx.get('Origin')) }));
    app.use(compress({ br: false }));
    app.use(async (ctx, next) => {
      if (ctx.method === 'GET' || ctx.method === 'HEAD') return this.#serveGet(ctx);
      if (ctx.method !== 'POST') {
        ctx.status = 405;
        ctx.body = 'method not allowed';
        return;
      }
      if (ctx.request.length > this.#bodyLimit) {
        this.#answerTooLarge(ctx);
        return;
      }
      if (!ctx.is(JSON_TYPES)) {
        ctx.status = 415;
        ctx.body = 'invalid content type, only application/json is supported';
        return;
      }
      await next();
    });
    app.use(
      bodyParser({
        enableTypes: ['json'],
        extendTypes: { json: JSON_TYPES },
        jsonLimit: String(this.#bodyLimit),
        // Top-level strings and numbers reach the dispatcher, which answers them as invalid requests.
        strict: false,
      }),
    );
    app.use(async (ctx) => {
      const rawBody = ctx.request.rawBody;
      const request = new RpcRequest('http', ctx.get('X-Request-Id') || String(++this.#nextRequestId), undefined);
      const answer =
        rawBody === undefined || rawBody.trim() === ''
          ? Dispatcher.PARSE_ERROR
          : await this.dispatcher.dispatch(ctx.request.body, rawBody, request);
      for (const [name, value] of request.responseHeaders ?? []) ctx.set(name, value);
      ctx.status = 200;
      ctx.type = 'application/json';
      ctx.body = answer ?? '';
    });
  }

  /** geth answers a bare GET with 200 so that load balancers can probe the RPC port. */
  async #serveGet(ctx: Koa.Context): Promise<void> {
    if (ctx.path === '/metrics' && this.metrics !== null) {
      ctx.type = this.metrics.registry.contentType;
      ctx.body = await this.metrics.registry.metrics();
      return;
    }
    if (ctx.path === '/health') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/' && !ctx.request.length) {
      ctx.status = 200;
      ctx.body = '';
      return;
    }
    ctx.status = 404;
  }

  #allowedOrigin(origin: string): string {
    const allowed = this.config.evm.cors_origins;
    if (allowed.includes('*')) return '*';
    return allowed.includes(origin) ? origin : '';
  }

  #answerTooLarge(ctx: Koa.Context): void {
    ctx.status = 413;
    ctx.type = 'application/json';
    ctx.body = errorText('null', {
      code: ErrorCode.InvalidRequest,
      message: `request body too large: the limit is ${this.#bodyLimit} bytes`,
    });
  }

  /** Body-parser failures: too large is 413, unreadable JSON is a -32700 answer. */
  #answerTransportError(ctx: Koa.Context, error: unknown): void {
    const { status, type } = error as HttpError;
    if (status === 413) return this.#answerTooLarge(ctx);
    if (status === 400 || type === 'entity.parse.failed') {
      ctx.status = 200;
      ctx.type = 'application/json';
      ctx.body = Dispatcher.PARSE_ERROR;
      return;
    }
    if (type === 'request.aborted') return;
    this.logger.error({ err: error }, 'HTTP request failed');
    ctx.status = typeof status === 'number' && status >= 400 ? status : 500;
    ctx.body = 'internal error';
  }
}

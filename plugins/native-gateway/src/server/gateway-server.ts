import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import {
  clientOf,
  ConnectionLimits,
  parseRequestJson,
  PipelineBound,
  RpcError,
  runBoundedBatch,
  type HeldAnswers,
  type UnfinishedRequests,
} from '@evmnode/core';
import type { CallParams, GatewayMethod } from './gateway-method.js';
import { clientTurn } from './client-turn.js';
import { EventSockets } from './event-sockets.js';
import { CometRpcError } from './rpc-error.js';
import { requestTarget } from './request-target.js';
import { errorResponse, idOf, INVALID_ID, INVALID_ID_RESPONSE, isRequestObject } from './json-rpc-envelope.js';

export interface GatewayServerOptions {
  readonly port: number;
  readonly host: string;
  readonly maxBodyBytes: number;
  readonly readTimeoutMs: number;
  readonly idleTimeoutMs: number;
  /** Time from a request's arrival by which its answer must be written, or its connection is closed. */
  readonly writeTimeoutMs: number;
  /** The bound on the answers the node holds, shared with its other ports. */
  readonly heldAnswers: HeldAnswers;
  /** The bound on the requests the node has received part of, shared with its other ports. */
  readonly unfinishedRequests: UnfinishedRequests;
  /** Most calls in one batch (CometBFT's `max_request_batch_size`; 0: no limit). */
  readonly maxBatchSize: number;
  /** Bytes of answers after which a batch's remaining calls get `response too large`. */
  readonly maxResponseBytes: number;
  /** `[evm] max_client_share`: the share of the node's batches under way one remote address may run. */
  readonly clientShare: number;
  /** Most connections open at once, in all and from one remote address. */
  readonly maxOpenConnections: number;
  readonly maxConnectionsPerAddress: number;
}

/**
 * Bytes of answers a connection may leave unread before the gateway serves its next request: a
 * client that pipelines requests and never reads stops being served (and node:http then stops
 * reading it) instead of making the gateway buffer answers without bound.
 */
const MAX_UNREAD_OUTPUT = 1024 * 1024;

/** Resolves once `socket` holds at most MAX_UNREAD_OUTPUT unwritten bytes, or has closed. */
function whenDrained(socket: Socket): Promise<void> | undefined {
  if (socket.writableLength <= MAX_UNREAD_OUTPUT || socket.destroyed) return undefined;
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done).off('close', done);
      resolve();
    };
    socket.on('drain', done).on('close', done);
  });
}

/** CometBFT answers GET (URI) calls with this id. */
const URI_CALL_ID = -1;

/** Why a body was not read to its end: the node had no room for the requests it was receiving. */
class RequestsBusy extends Error {}

/**
 * The body as text; past `limit` bytes it is refused at once and the rest is read and dropped, so
 * that the refusal reaches the client. Its bytes count in `unfinished` until it ends; one closed
 * for room there is refused with a {@link RequestsBusy}, the rest unread.
 */
function readBody(req: IncomingMessage, limit: number, unfinished: UnfinishedRequests): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let length = 0;
    const count = unfinished.httpBody(req, () => {
      req.off('data', onData);
      chunks = [];
      reject(new RequestsBusy());
    });
    const onData = (chunk: Buffer): void => {
      const within = length <= limit;
      length += chunk.length;
      if (length <= limit) chunks.push(chunk);
      else if (within) reject(new Error('http: request body too large'));
      count(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, body === undefined ? '' : JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

/**
 * The gateway's HTTP server, as CometBFT's RPC server behaves: JSON-RPC 2.0 on POST (any path,
 * batches included; calls without an id are notifications and get no answer) and the URI form on
 * GET (`/status`, `/tx?hash=0x...`), and a WebSocket endpoint ({@link EventSockets}).
 */
export class GatewayServer {
  readonly #server: Server;
  readonly #methods: ReadonlyMap<string, GatewayMethod>;
  /** Per connection, the request being served: pipelined requests are served one at a time, as CometBFT does. */
  readonly #turns = new WeakMap<Socket, Promise<void>>();
  /** What each connection has in flight: one pipelining thousands of requests stops being read. */
  readonly #pipeline: PipelineBound;
  /** The WebSocket endpoint, `/websocket`: the same methods, and event subscriptions. */
  readonly events: EventSockets;

  constructor(
    methods: readonly GatewayMethod[],
    private readonly options: GatewayServerOptions,
    private readonly logger: Logger,
  ) {
    this.#methods = new Map(methods.map((method) => [method.name, method]));
    this.#server = createServer((req, res) => {
      const { socket } = req;
      if (!this.#pipeline.admit(req, res)) return;
      const arrived = Date.now();
      const client = clientOf(socket.remoteAddress);
      const turn = (this.#turns.get(socket) ?? Promise.resolve())
        .then(() => whenDrained(socket))
        .then(() => clientTurn(client))
        .then(async () => {
          // The requests queued behind one that closed the connection are answered to nobody.
          if (socket.destroyed) return;
          await this.#serve(req, res, client);
          options.heldAnswers.guardHttpAnswer(res, socket, arrived + options.writeTimeoutMs);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'native gateway request failed');
          if (!res.headersSent) res.statusCode = 500;
          res.end();
        });
      this.#turns.set(socket, turn);
    });
    this.#server.requestTimeout = options.readTimeoutMs;
    this.#server.headersTimeout = Math.min(options.readTimeoutMs, 60_000);
    this.#server.keepAliveTimeout = options.idleTimeoutMs;
    new ConnectionLimits({
      maxOpen: options.maxOpenConnections,
      maxPerAddress: options.maxConnectionsPerAddress,
    }).attach(this.#server);
    this.#pipeline = new PipelineBound(this.#server);
    this.events = new EventSockets(
      {
        maxMessageBytes: options.maxBodyBytes,
        clientShare: options.clientShare,
        idleTimeoutMs: options.idleTimeoutMs,
        heldAnswers: options.heldAnswers,
        unfinished: options.unfinishedRequests,
      },
      (request, client) => this.#answer(request, client),
    );
    this.events.attach(this.#server);
  }

  /** Starts listening; resolves to the bound address (port 0 picks a free one). */
  listen(): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.options.port, this.options.host, () => {
        this.#server.off('error', reject);
        resolve(this.#server.address() as AddressInfo);
      });
    });
  }

  /**
   * Stops listening and closes every connection. It stops after the chain, so no call waits for
   * anything new; one still reading when the node closes its database is refused, with no one to answer.
   */
  close(): Promise<void> {
    this.events.close();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    return closed;
  }

  /** Serves a request of `client` (its remote address, as `clientOf` gives it). */
  async #serve(req: IncomingMessage, res: ServerResponse, client: string): Promise<void> {
    if (req.method === 'POST') return this.#post(req, res, client);
    if (req.method === 'GET') return this.#get(req, res, client);
    res.writeHead(405, { allow: 'GET, POST' }).end();
  }

  async #post(req: IncomingMessage, res: ServerResponse, client: string): Promise<void> {
    let body: unknown;
    try {
      const bytes = await readBody(req, this.options.maxBodyBytes, this.options.unfinishedRequests);
      try {
        body = await parseRequestJson(bytes);
      } catch (error) {
        const refusal = CometRpcError.unreadable(error);
        return send(res, refusal.httpStatus, errorResponse(null, refusal));
      }
    } catch (error) {
      if (error instanceof RequestsBusy) {
        // The rest of the body is not read: closing the connection discards it.
        res.setHeader('connection', 'close');
        return send(res, 503, errorResponse(null, CometRpcError.requestsBusy()));
      }
      const refusal = CometRpcError.invalidRequest(`error reading request body: ${(error as Error).message}`);
      return send(res, refusal.httpStatus, errorResponse(null, refusal));
    }
    if (Array.isArray(body)) {
      if (body.length === 0) {
        const refusal = CometRpcError.invalidRequest('empty batch');
        return send(res, refusal.httpStatus, errorResponse(null, refusal));
      }
      const { maxBatchSize } = this.options;
      if (maxBatchSize > 0 && body.length > maxBatchSize) {
        // CometBFT answers this with status 200 and the error alone.
        const detail = `batch request exceeds maximum (${maxBatchSize}) allowed number of requests`;
        return send(res, 200, errorResponse(null, CometRpcError.invalidRequest(detail)));
      }
      // Known as on the EVM HTTP port: a client's batches share one share.
      return sendText(res, 200, await this.#answerBatch(body, client));
    }
    return send(res, 200, await this.#answer(body, client));
  }

  /**
   * A batch's answers as JSON text ('' when all are notifications): its calls run a few at once,
   * in order, and once the answers pass the response size cap the rest are not run.
   */
  async #answerBatch(batch: unknown[], client: string): Promise<string> {
    const { answers, stop, counted } = await runBoundedBatch(
      batch.length,
      async (index) => {
        const response = await this.#answer(batch[index], client);
        return response === undefined ? undefined : JSON.stringify(response);
      },
      {
        maxBytes: this.options.maxResponseBytes,
        held: this.options.heldAnswers,
        client: { id: client, share: this.options.clientShare },
      },
    );
    if (stop === 'too-large' || stop === 'busy') {
      const error = stop === 'busy' ? CometRpcError.answersBusy() : CometRpcError.responseTooLarge();
      for (let index = counted; index < batch.length; index++) {
        const id = idOf(batch[index]);
        if (id !== undefined) answers[index] = JSON.stringify(errorResponse(id === INVALID_ID ? null : id, error));
        else answers[index] = undefined;
      }
    }
    const texts = answers.filter((answer) => answer !== undefined);
    return texts.length === 0 ? '' : `[${texts.join(',')}]`;
  }

  /** The response to one JSON-RPC request of `client`, or undefined for a notification. */
  async #answer(request: unknown, client: string): Promise<object | undefined> {
    if (!isRequestObject(request)) {
      return errorResponse(null, CometRpcError.invalidRequest('a request must be a JSON object'));
    }
    const { method, params } = request as { method?: unknown; params?: unknown };
    const id = idOf(request);
    if (id === undefined) return undefined;
    if (id === INVALID_ID) return INVALID_ID_RESPONSE;
    try {
      const result = await this.#call(method, { form: 'json', value: params }, client);
      return { jsonrpc: '2.0', id, result };
    } catch (error) {
      return errorResponse(id, this.#asRpcError(error, method));
    }
  }

  async #get(req: IncomingMessage, res: ServerResponse, client: string): Promise<void> {
    const url = requestTarget(req);
    if (url === undefined) {
      send(res, 400, errorResponse(URI_CALL_ID, CometRpcError.invalidRequest('malformed request target')));
      return;
    }
    const method = url.pathname.slice(1);
    try {
      const result = await this.#call(method, { form: 'uri', value: url.searchParams }, client);
      send(res, 200, { jsonrpc: '2.0', id: URI_CALL_ID, result });
    } catch (error) {
      const rpcError = this.#asRpcError(error, method);
      send(res, rpcError.httpStatus, errorResponse(URI_CALL_ID, rpcError));
    }
  }

  #call(method: unknown, params: CallParams, client: string): Promise<unknown> {
    const found = typeof method === 'string' ? this.#methods.get(method) : undefined;
    if (found === undefined) throw CometRpcError.methodNotFound();
    return found.call(params, { client });
  }

  #asRpcError(error: unknown, method: unknown): CometRpcError {
    if (error instanceof CometRpcError) return error;
    // The node's own refusals (a busy limit) are answers, not failures: a flood of them logs nothing.
    if (!(error instanceof RpcError)) this.logger.error({ err: error, method }, 'native gateway method failed');
    return CometRpcError.internal((error as Error).message);
  }
}

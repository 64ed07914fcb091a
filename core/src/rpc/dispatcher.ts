import type { Logger } from 'pino';
import { inject, injectable } from '../di/decorators.js';
import { runBoundedBatch } from './bounded-batch.js';
import { decodeParams } from './decode-params.js';
import { EventLoopTurns } from './event-loop-turns.js';
import type { MethodRegistry } from './method-registry.js';
import type { RequestHooks } from './request-hooks.js';
import { RequestJsonBusyError } from './request-json.js';
import { errorText, IdTexts, isValidId, resultText, type ResponseBody } from './response-text.js';
import type { RpcRequest } from './rpc-request.js';
import type { CoreConfig } from '../config/core-schema.js';
import { ErrorCode } from '../errors/codes.js';
import {
  InvalidRequestError,
  isRpcError,
  MethodNotFoundError,
  ResourceUnavailableError,
  type RpcErrorObject,
  VersionNotSupportedError,
} from '../errors/rpc-error.js';
import { InternalTokens } from '../node/internal-tokens.js';
import { CoreTokens } from '../node/core-tokens.js';
import { HELD_ANSWERS_BUSY, type HeldAnswers } from '../transport/held-answers.js';

/** The answer to one call: response text, nothing (a notification), or a call still running. */
type Outcome = ResponseBody | undefined | PendingCall;

interface PendingCall {
  readonly promise: Promise<ResponseBody | undefined>;
  /** The id of the answer if the deadline passes first, as JSON text (undefined for a notification). */
  readonly idText: string | undefined;
  readonly method: string;
  settled: boolean;
  timedOut: boolean;
}

const INVALID_REQUEST = errorText('null', new InvalidRequestError().toJSON());
const SUBSCRIBE_SUFFIX = '_subscribe';
const EMPTY_BATCH = errorText('null', new InvalidRequestError('empty batch').toJSON());
const VERSION_NOT_SUPPORTED = new VersionNotSupportedError('version not supported: jsonrpc must be "2.0"').toJSON();
const INVALID_REQUEST_ERROR = new InvalidRequestError().toJSON();
const TIMED_OUT = new ResourceUnavailableError('request timed out');
const TIMED_OUT_ERROR = TIMED_OUT.toJSON();
const RESPONSE_TOO_LARGE: RpcErrorObject = { code: ErrorCode.TransactionRejected, message: 'response too large' };
const INTERNAL: RpcErrorObject = { code: ErrorCode.Internal, message: 'internal error' };
const ANSWERS_BUSY: RpcErrorObject = { code: ErrorCode.LimitExceeded, message: HELD_ANSWERS_BUSY };

function isPending(outcome: Outcome): outcome is PendingCall {
  return typeof outcome === 'object' && !Buffer.isBuffer(outcome) && !Array.isArray(outcome);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const BATCH_OPEN = Buffer.from('[');
const BATCH_COMMA = Buffer.from(',');
const BATCH_CLOSE = Buffer.from(']');

/**
 * A batch's answers as one JSON array, notifications left out; undefined when none is owed. Text
 * answers are joined as text; with answers that are bytes, the array is made of pieces: a block
 * trace's 100 MB, made a string, would take a third of the JS heap, and the joined array as much again.
 */
function joinBatch(texts: readonly (ResponseBody | undefined)[]): ResponseBody | undefined {
  const owed = texts.filter((text) => text !== undefined);
  if (owed.length === 0) return undefined;
  if (owed.every((text) => typeof text === 'string')) return `[${owed.join(',')}]`;
  const parts: Uint8Array[] = [];
  owed.forEach((text, index) => {
    parts.push(index === 0 ? BATCH_OPEN : BATCH_COMMA);
    if (typeof text === 'string') parts.push(Buffer.from(text));
    else if (Buffer.isBuffer(text)) parts.push(text);
    // Not spread into push: an answer of a few hundred thousand pieces would pass the call's argument limit.
    else for (const part of text) parts.push(part);
  });
  parts.push(BATCH_CLOSE);
  return parts;
}

/**
 * The one place JSON-RPC requests are served: envelope checks, batches, method lookup, transport
 * policy, request hooks, parameter decoding, deadlines and the mapping of thrown errors.
 */
@injectable()
export class Dispatcher {
  readonly #batchLimit: number;
  readonly #responseMaxBytes: number;
  readonly #timeoutMs: number;
  readonly #clientShare: number;

  constructor(
    @inject(InternalTokens.MethodRegistry) private readonly registry: MethodRegistry,
    @inject(CoreTokens.RequestHooks) private readonly hooks: RequestHooks,
    @inject(CoreTokens.Config) config: CoreConfig,
    @inject(CoreTokens.Logger) private readonly logger: Logger,
    @inject(CoreTokens.HeldAnswers) private readonly heldAnswers: HeldAnswers,
  ) {
    this.#batchLimit = config.evm.batch_request_limit;
    this.#responseMaxBytes = config.evm.batch_response_max_size;
    // geth answers 100 ms before the write timeout, so that the answer still gets out.
    this.#timeoutMs = Math.max(config.evm.write_timeout - 100, 1);
    this.#clientShare = config.evm.max_client_share;
  }

  /** The answer to a body that is not valid JSON. */
  static readonly PARSE_ERROR = errorText('null', { code: ErrorCode.ParseError, message: 'parse error' });

  /** The answer to a request whose serving failed outside any call (the call's own failures are answered by id). */
  static readonly INTERNAL_ERROR = errorText('null', INTERNAL);

  /** The answer to a body `parseRequestJson` refused with `error`: not JSON, or too many waiting to be read. */
  static unreadable(error: unknown): string {
    if (!(error instanceof RequestJsonBusyError)) return Dispatcher.PARSE_ERROR;
    return errorText('null', { code: ErrorCode.LimitExceeded, message: error.message });
  }

  /**
   * Serves a parsed request body (`rawBody` is its source text, for exact ids). Resolves to the
   * response text, or undefined when nothing is to be sent (notifications only).
   */
  dispatch(
    body: unknown,
    rawBody: string | undefined,
    request: RpcRequest,
  ): ResponseBody | undefined | Promise<ResponseBody | undefined> {
    const ids = new IdTexts(rawBody);
    if (Array.isArray(body)) return this.#dispatchBatch(body, ids, request);
    const outcome = this.#call(body, -1, ids, request);
    if (!isPending(outcome)) return outcome;
    return this.#awaitCall(outcome, request);
  }

  /**
   * Serves a batch with bounded concurrency, in order; past `batch_response_max_size` the calls
   * that follow are not run and get `response too large`, as in geth.
   */
  async #dispatchBatch(batch: unknown[], ids: IdTexts, request: RpcRequest): Promise<ResponseBody | undefined> {
    if (batch.length === 0) return EMPTY_BATCH;
    if (batch.length > this.#batchLimit) return `[${this.#batchTooLarge(batch, ids)}]`;
    const pending = new Map<number, PendingCall>();
    const run = await runBoundedBatch(
      batch.length,
      (index) => {
        const outcome = this.#call(batch[index], index, ids, request);
        if (!isPending(outcome)) return outcome;
        pending.set(index, outcome);
        return outcome.promise;
      },
      {
        maxBytes: this.#responseMaxBytes,
        timeoutMs: this.#timeoutMs,
        held: this.heldAnswers,
        client: { id: request.clientId, share: this.#clientShare },
      },
    );
    const { answers } = run;
    if (run.stop === 'too-large' || run.stop === 'busy') {
      // Calls still running past the cap finish on their own; their answers are dropped.
      for (const index of run.running) pending.get(index)!.timedOut = true;
      this.#refuseFrom(batch, ids, answers, run.counted, run.stop === 'busy' ? ANSWERS_BUSY : RESPONSE_TOO_LARGE);
    } else if (run.stop === 'timed-out') {
      for (const index of run.running) answers[index] = this.#expire(pending.get(index)!, request);
      this.#refuseFrom(batch, ids, answers, run.next, TIMED_OUT_ERROR);
      request.abort(TIMED_OUT);
    }
    return joinBatch(answers);
  }

  /** Answers the calls of a batch from `from` on with `error`, without running them (notifications get nothing). */
  #refuseFrom(
    batch: unknown[],
    ids: IdTexts,
    texts: (ResponseBody | undefined)[],
    from: number,
    error: RpcErrorObject,
  ): void {
    for (let index = from; index < batch.length; index++) {
      const message = batch[index];
      const id = isPlainObject(message) ? message.id : null;
      texts[index] = id === undefined ? undefined : errorText(isValidId(id) ? ids.text(id, index) : 'null', error);
    }
  }

  /** geth's single-element answer to an oversized batch, with the id of its first call. */
  #batchTooLarge(batch: unknown[], ids: IdTexts): string {
    const index = batch.findIndex(
      (message) => isPlainObject(message) && message.id !== undefined && isValidId(message.id),
    );
    const idText = index === -1 ? 'null' : ids.text((batch[index] as { id: unknown }).id, index);
    return errorText(idText, new InvalidRequestError('batch too large').toJSON());
  }

  /** Serves one message of a request; `index` is its place in a batch, -1 for a single request. */
  #call(message: unknown, index: number, ids: IdTexts, request: RpcRequest): Outcome {
    if (!isPlainObject(message)) return INVALID_REQUEST;
    const id = message.id;
    const isNotification = id === undefined;
    if (!isNotification && !isValidId(id)) return INVALID_REQUEST;
    const idText = isNotification ? 'null' : ids.text(id, index);
    if (message.jsonrpc !== '2.0') return errorText(idText, VERSION_NOT_SUPPORTED);
    const method = message.method;
    if (typeof method !== 'string' || method.length === 0) return errorText(idText, INVALID_REQUEST_ERROR);
    // A subscription's id is its answer: as in geth, only a call with an id subscribes.
    if (isNotification && method.endsWith(SUBSCRIBE_SUFFIX)) return undefined;

    const started = this.hooks.hasAfter ? performance.now() : 0;
    let result: unknown;
    try {
      const entry = this.registry.get(method);
      const refusal = this.registry.transportRefusal(method, entry, request.transport);
      if (refusal !== undefined) throw refusal;
      this.hooks.runBefore(method, request);
      if (entry === undefined) throw MethodNotFoundError.forMethod(method);
      const { definition } = entry;
      // A collection's argument is decoded in the client's turns of the thread (`ClientTurns`).
      const args = decodeParams(definition.params, message.params, new EventLoopTurns(undefined, request.clientId));
      result =
        args instanceof Promise
          ? args.then((decoded) => definition.handler(decoded, request))
          : definition.handler(args, request);
    } catch (error) {
      return this.#failed(error, method, idText, isNotification, request, started);
    }
    if (!(result instanceof Promise)) return this.#succeeded(result, method, idText, isNotification, request, started);

    const pending: PendingCall = {
      method,
      idText: isNotification ? undefined : idText,
      settled: false,
      timedOut: false,
      promise: result.then(
        (value) =>
          pending.timedOut ? undefined : this.#succeeded(value, method, idText, isNotification, request, started),
        (error) =>
          pending.timedOut ? undefined : this.#failed(error, method, idText, isNotification, request, started),
      ),
    };
    return pending;
  }

  #succeeded(
    result: unknown,
    method: string,
    idText: string,
    isNotification: boolean,
    request: RpcRequest,
    started: number,
  ): ResponseBody | undefined {
    let text: ResponseBody;
    try {
      text = resultText(idText, result);
    } catch (error) {
      return this.#failed(error, method, idText, isNotification, request, started);
    }
    if (started !== 0) this.hooks.runAfter(method, request, undefined, performance.now() - started);
    return isNotification ? undefined : text;
  }

  #failed(
    error: unknown,
    method: string,
    idText: string,
    isNotification: boolean,
    request: RpcRequest,
    started: number,
  ): string | undefined {
    const errorObject = this.#toErrorObject(error, method, request);
    if (started !== 0) this.hooks.runAfter(method, request, errorObject, performance.now() - started);
    return isNotification ? undefined : errorText(idText, errorObject);
  }

  /** The single mapping of thrown errors: typed errors as they are, anything else hidden and logged once. */
  #toErrorObject(error: unknown, method: string, request: RpcRequest): RpcErrorObject {
    if (isRpcError(error)) {
      return error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data };
    }
    this.logger.error({ err: error, method, requestId: request.requestId }, 'call failed with an unexpected error');
    return INTERNAL;
  }

  /** Waits for a single call, up to the request's deadline; a slow one gets `request timed out`. */
  async #awaitCall(pending: PendingCall, request: RpcRequest): Promise<ResponseBody | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#timeoutMs)));
    await Promise.race([pending.promise.then(() => (pending.settled = true)), deadline]);
    clearTimeout(timer);
    if (pending.settled) return pending.promise;
    request.abort(TIMED_OUT);
    return this.#expire(pending, request);
  }

  /** Gives up on a call past the deadline: its late answer is dropped. */
  #expire(pending: PendingCall, request: RpcRequest): string | undefined {
    pending.timedOut = true;
    // A hook gets its own copy: TIMED_OUT_ERROR is only ever encoded.
    this.hooks.runAfter(pending.method, request, TIMED_OUT.toJSON(), this.#timeoutMs);
    // Written only now: most calls end in time, and the text costs a JSON encoding.
    return pending.idText === undefined ? undefined : errorText(pending.idText, TIMED_OUT_ERROR);
  }
}

import type { Transport } from './define-method.js';
import type { Connection, RequestContext } from './request-context.js';

/** The per-request state a transport creates and the dispatcher fills in. */
export class RpcRequest implements RequestContext {
  #controller: AbortController | undefined;
  #headers: [string, string][] | undefined;

  constructor(
    readonly transport: Transport,
    readonly requestId: string,
    readonly connection: Connection | undefined,
  ) {}

  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }

  setResponseHeader(name: string, value: string): void {
    (this.#headers ??= []).push([name, value]);
  }

  /** Headers that calls asked to add, or undefined. */
  get responseHeaders(): readonly (readonly [string, string])[] | undefined {
    return this.#headers;
  }

  /** Signals handlers still running that their answer is no longer awaited. */
  abort(reason: Error): void {
    this.#controller?.abort(reason);
  }
}

import type { Transport } from './define-method.js';
import type { Connection, RequestContext, ResponseHeaderOptions } from './request-context.js';

/** The per-request state a transport creates and the dispatcher fills in. */
export class RpcRequest implements RequestContext {
  #controller: AbortController | undefined;
  #abortReason: Error | undefined;
  #headers: [string, string][] | undefined;
  #uncompressed = false;

  constructor(
    readonly transport: Transport,
    readonly requestId: string,
    readonly connection: Connection | undefined,
    readonly clientId: string,
    readonly origin: string | undefined = undefined,
  ) {}

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      // Created on first use: most calls never look at it.
      this.#controller = new AbortController();
      if (this.#abortReason !== undefined) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  setResponseHeader(name: string, value: string, options?: ResponseHeaderOptions): void {
    const headers = (this.#headers ??= []);
    const existing = headers.find(([known]) => known.toLowerCase() === name.toLowerCase());
    if (existing === undefined) headers.push([name, value]);
    else existing[1] = value;
    if (options?.uncompressed === true) this.#uncompressed = true;
  }

  /** Whether a header set asks for the response to go uncompressed. */
  get uncompressed(): boolean {
    return this.#uncompressed;
  }

  /** Headers that calls asked to add, or undefined. */
  get responseHeaders(): readonly (readonly [string, string])[] | undefined {
    return this.#headers;
  }

  /** Signals handlers still running that their answer is no longer awaited. */
  abort(reason: Error): void {
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }
}

import type { RpcErrorObject } from '../errors/rpc-error.js';
import type { RequestContext } from './request-context.js';

/**
 * Code that runs around every call the dispatcher serves: limits, metrics, gates. Hooks run in
 * the order they were added.
 */
export interface RequestHook {
  /** Names the hook in logs. */
  readonly name: string;
  /**
   * Runs before the method is looked up and its parameters decoded, also for methods that do not
   * exist. Throw an `RpcError` to refuse the call.
   */
  beforeCall?(method: string, request: RequestContext): void;
  /** Runs once the call has an outcome; `error` is undefined on success. */
  afterCall?(method: string, request: RequestContext, error: RpcErrorObject | undefined, durationMs: number): void;
}

/** The hooks the dispatcher runs; plugins add theirs in setup. */
export class RequestHooks {
  #before: RequestHook[] = [];
  #after: RequestHook[] = [];
  #sealed = false;

  add(hook: RequestHook): void {
    if (this.#sealed) throw new Error(`request hook ${hook.name} added after the node started`);
    if (hook.beforeCall) this.#before.push(hook);
    if (hook.afterCall) this.#after.push(hook);
  }

  /** Stops further additions; called when the node starts serving. */
  seal(): void {
    this.#sealed = true;
  }

  get hasAfter(): boolean {
    return this.#after.length > 0;
  }

  runBefore(method: string, request: RequestContext): void {
    for (const hook of this.#before) hook.beforeCall!(method, request);
  }

  runAfter(method: string, request: RequestContext, error: RpcErrorObject | undefined, durationMs: number): void {
    for (const hook of this.#after) hook.afterCall!(method, request, error, durationMs);
  }
}

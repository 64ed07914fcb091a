import type { ParamCodec } from './codec.js';
import type { RequestContext } from './request-context.js';

/** The transports a method can be served over. */
export type Transport = 'http' | 'ws';

/** The decoded parameter tuple of a codec list. */
export type DecodedParams<P extends readonly ParamCodec<unknown>[]> = {
  -readonly [K in keyof P]: P[K] extends ParamCodec<infer T> ? T : never;
};

/** A JSON-RPC method as a value: its name, positional parameter codecs and handler. */
export interface MethodDefinition<
  P extends readonly ParamCodec<unknown>[] = readonly ParamCodec<unknown>[],
  R = unknown,
> {
  /** `<namespace>_<name>`, e.g. `eth_chainId`. */
  readonly name: string;
  /** Positional parameters; optional ones may only trail. */
  readonly params: P;
  /**
   * Transports that serve the method. When omitted, the transports given at registration apply
   * (by default both).
   */
  readonly transports?: readonly Transport[];
  /** Returns the result (JSON-serialisable, bigints excluded) or throws an `RpcError`. */
  handler(params: DecodedParams<P>, request: RequestContext): R | Promise<R>;
}

const METHOD_NAME = /^[a-z][a-z0-9]*_[A-Za-z][A-Za-z0-9]*$/;

/**
 * Defines a JSON-RPC method.
 *
 * @example
 * ```ts
 * export const getBalance = defineMethod({
 *   name: 'eth_getBalance',
 *   params: [address, blockRef.optional({ kind: 'tag', tag: 'latest' })],
 *   handler: ([who, block]) => balances.at(who, block),
 * });
 * ```
 */
export function defineMethod<const P extends readonly ParamCodec<unknown>[], R>(
  definition: MethodDefinition<P, R>,
): MethodDefinition<P, R> {
  if (!METHOD_NAME.test(definition.name)) {
    throw new TypeError(`method name "${definition.name}" must look like <namespace>_<method>`);
  }
  const firstOptional = definition.params.findIndex((param) => param.isOptional);
  if (firstOptional !== -1 && definition.params.slice(firstOptional).some((param) => !param.isOptional)) {
    throw new TypeError(`method ${definition.name}: optional parameters may only trail the required ones`);
  }
  return Object.freeze({ ...definition });
}

/** The namespace of a method name: the part before the first underscore. */
export function namespaceOf(method: string): string {
  const underscore = method.indexOf('_');
  return underscore === -1 ? '' : method.slice(0, underscore);
}

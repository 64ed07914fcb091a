import { ArgError, type Arg } from './args.js';
import { CometRpcError } from './rpc-error.js';

/** A method's arguments, in CometBFT's order: positional params are matched to them in this order. */
export type ArgSpec = Readonly<Record<string, Arg<unknown>>>;

export type ArgValues<A extends ArgSpec> = { readonly [K in keyof A]: A[K] extends Arg<infer T> ? T : never };

/** The params of a call, as they came: a JSON-RPC `params` value, or a GET query string. */
export type CallParams =
  { readonly form: 'json'; readonly value: unknown } | { readonly form: 'uri'; readonly value: URLSearchParams };

/** Who a call is for: its client (an IPv4 address or an IPv6 /64, as core's `clientOf` gives it). */
export interface CallContext {
  readonly client: string;
}

/** One method of the gateway; results are plain JSON values. */
export interface GatewayMethod {
  readonly name: string;
  call(params: CallParams, context: CallContext): Promise<unknown>;
}

function decodeArg(name: string, read: () => unknown): unknown {
  try {
    return read();
  } catch (error) {
    if (error instanceof ArgError) throw CometRpcError.invalidParams(`${name}: ${error.message}`);
    throw error;
  }
}

function namedJsonParams(names: readonly string[], value: unknown): Readonly<Record<string, unknown>> {
  if (value === undefined || value === null) return {};
  if (Array.isArray(value)) {
    if (value.length > names.length) {
      throw CometRpcError.invalidParams(
        `expected ${names.length} parameters (${names.join(', ')}), got ${value.length}`,
      );
    }
    const named: Record<string, unknown> = {};
    (value as unknown[]).forEach((item, index) => (named[names[index]!] = item));
    return named;
  }
  if (typeof value === 'object') return value as Record<string, unknown>;
  throw CometRpcError.invalidParams('params must be an object or an array');
}

function decodeArgs<A extends ArgSpec>(args: A, params: CallParams): ArgValues<A> {
  const names = Object.keys(args);
  const json = params.form === 'json' ? namedJsonParams(names, params.value) : undefined;
  const decoded: Record<string, unknown> = {};
  for (const name of names) {
    const arg = args[name]!;
    const raw = json === undefined ? (params.value as URLSearchParams).get(name) : json[name];
    if (raw === undefined || raw === null) {
      if (arg.absent === undefined) throw CometRpcError.invalidParams(`missing required argument ${name}`);
      decoded[name] = arg.absent();
    } else {
      decoded[name] = decodeArg(name, () => (json === undefined ? arg.fromUri(raw as string) : arg.fromJson(raw)));
    }
  }
  return decoded as ArgValues<A>;
}

/** Declares a gateway method: its arguments decode in one step, and the handler gets them typed. */
export function defineGatewayMethod<A extends ArgSpec>(
  name: string,
  args: A,
  handler: (args: ArgValues<A>, context: CallContext) => unknown,
): GatewayMethod {
  return { name, call: async (params, context) => await handler(decodeArgs(args, params), context) };
}

import { namespaceOf, type MethodDefinition, type Transport } from './define-method.js';
import { inject, injectable } from '../di/decorators.js';
import type { CoreConfig } from '../config/core-schema.js';
import { MethodNotFoundError, type RpcError } from '../errors/rpc-error.js';
import { CoreTokens } from '../node/core-tokens.js';

/** Namespaces no plugin may serve (interface.md §1.1): every method in them is not found. */
export const UNSERVED_NAMESPACES: ReadonlySet<string> = new Set([
  'admin',
  'miner',
  'clique',
  'engine',
  'les',
  'personal',
]);

/** The refusal of a method of an HTTP-only namespace over WebSocket (decisions.md D2). */
export function httpOnlyRefusal(name: string): MethodNotFoundError {
  return new MethodNotFoundError(`the ${namespaceOf(name)} namespace is HTTP-only: call ${name} over HTTP`);
}

/** A registered method, ready for the dispatcher. */
export interface MethodEntry {
  readonly definition: MethodDefinition;
  readonly http: boolean;
  readonly ws: boolean;
  /** The plugin that registered it. */
  readonly owner: string;
}

const BOTH: readonly Transport[] = ['http', 'ws'];

/** Every method the node serves, by name, with the transport policy of each namespace. */
@injectable()
export class MethodRegistry {
  readonly #methods = new Map<string, MethodEntry>();
  readonly #namespaceTransports = new Map<string, Set<Transport>>();
  readonly #denied: ReadonlySet<string>;
  #sealed = false;

  constructor(@inject(CoreTokens.Config) config: CoreConfig) {
    this.#denied = new Set(config.evm.deny_list);
  }

  /**
   * Registers methods for `owner`. `transports` applies to those that do not declare their own;
   * it is how a plugin declares its namespace's policy (e.g. `debug` HTTP-only).
   */
  register(owner: string, definitions: readonly MethodDefinition[], transports: readonly Transport[] = BOTH): void {
    if (this.#sealed) throw new Error(`plugin ${owner} registered methods after the node started`);
    for (const definition of definitions) {
      const namespace = namespaceOf(definition.name);
      if (UNSERVED_NAMESPACES.has(namespace)) {
        throw new Error(`plugin ${owner} registers ${definition.name}, but the ${namespace} namespace is never served`);
      }
      const existing = this.#methods.get(definition.name);
      if (existing !== undefined) {
        throw new Error(
          `plugin ${owner} registers ${definition.name}, which plugin ${existing.owner} already registered`,
        );
      }
      const served = definition.transports ?? transports;
      this.#methods.set(definition.name, {
        definition,
        http: served.includes('http'),
        ws: served.includes('ws'),
        owner,
      });
      let namespaceTransports = this.#namespaceTransports.get(namespace);
      if (namespaceTransports === undefined)
        this.#namespaceTransports.set(namespace, (namespaceTransports = new Set()));
      for (const transport of served) namespaceTransports.add(transport);
    }
  }

  /** Stops further registration; called when the node starts serving. */
  seal(): void {
    this.#sealed = true;
  }

  /** The method, or undefined when it is unknown, denied by `deny_list`, or its plugin is not loaded. */
  get(name: string): MethodEntry | undefined {
    const entry = this.#methods.get(name);
    return entry === undefined || this.#denied.has(name) ? undefined : entry;
  }

  /**
   * Why `name` may not be called over `transport`, or undefined when it may (decisions.md D2).
   * `entry` is the result of {@link get} for `name`.
   */
  transportRefusal(name: string, entry: MethodEntry | undefined, transport: Transport): RpcError | undefined {
    if (
      entry !== undefined
        ? entry[transport]
        : (this.#namespaceTransports.get(namespaceOf(name))?.has(transport) ?? true)
    ) {
      return undefined;
    }
    if (transport === 'http') return new MethodNotFoundError('notifications not supported');
    return httpOnlyRefusal(name);
  }

  /** The names of every method served, sorted. */
  names(): string[] {
    return [...this.#methods.keys()].filter((name) => !this.#denied.has(name)).sort();
  }
}

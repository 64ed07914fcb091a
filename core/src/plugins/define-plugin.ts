import type { Logger } from 'pino';
import type { ConfigSchema } from '../config/schema-tree.js';
import type { ServiceOf, ServiceToken } from '../di/service-token.js';
import type { MethodDefinition, Transport } from '../rpc/define-method.js';
import type { RequestHook } from '../rpc/request-hooks.js';

/** The version of the API core offers plugins; a plugin declares the range it supports. */
export const CORE_API_VERSION = '2.18.0';

/** A plugin's service dependencies, by the names its setup receives them under. */
export type ServiceDeps = Readonly<Record<string, ServiceToken<unknown>>>;

/** The services a plugin's setup receives, typed from its declared deps. */
export type ResolvedDeps<D extends ServiceDeps> = { readonly [K in keyof D]: ServiceOf<D[K]> };

/** What a plugin's setup can do: it never sees the DI container. */
export interface PluginContext<D extends ServiceDeps = ServiceDeps, C = Readonly<Record<string, unknown>>> {
  readonly id: string;
  /** The validated `[plugins.<id>]` section. */
  readonly config: C;
  /** The node's home folder (`--home`): where a plugin keeps files of its own, such as keystores. */
  readonly home: string;
  /** The environment variables the node was started with (none in tests unless given). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly deps: ResolvedDeps<D>;
  /** A child logger whose lines carry `plugin: <id>`. */
  readonly logger: Logger;
  readonly rpc: {
    /**
     * Registers methods. `transports` is the policy for those that declare none: it is how a
     * plugin makes its namespace HTTP-only (`['http']`) or WebSocket-only (`['ws']`).
     */
    register(methods: readonly MethodDefinition[], options?: { readonly transports?: readonly Transport[] }): void;
    /** Adds a hook that runs around every call (limits, metrics, gates). */
    addHook(hook: RequestHook): void;
  };
  /** Makes a service available to plugins set up later; the token must be in the manifest's `provides`. */
  readonly provide: <T>(token: ServiceToken<T>, service: T) => void;
}

/** Hooks run when the node starts serving (in plugin order) and when it stops (in reverse). */
export interface PluginLifecycle {
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}

/** The function a plugin's setup module exports as default. */
export type PluginSetup<D extends ServiceDeps = ServiceDeps, C = Readonly<Record<string, unknown>>> = (
  context: PluginContext<D, C>,
) => void | PluginLifecycle | Promise<void | PluginLifecycle>;

/**
 * A plugin's manifest: importing it has no side effects, and its implementation is imported only
 * when the plugin is set up.
 */
export interface PluginManifest<D extends ServiceDeps = ServiceDeps, C = Readonly<Record<string, unknown>>> {
  /** Lower-case letters, digits and dashes; also the config section `[plugins.<id>]`. */
  readonly id: string;
  /** The semver range of {@link CORE_API_VERSION} this plugin supports, e.g. `^1.0.0`. */
  readonly coreApi: string;
  /** Plugins that must be set up before this one. */
  readonly dependsOn?: readonly string[];
  /** Groups operators can switch off with `[node] disable_tags`, e.g. `hosted-key`, `trace`, `legacy`. */
  readonly tags?: readonly string[];
  /** A convict schema fragment, mounted at `[plugins.<id>]`. */
  readonly config?: ConfigSchema;
  /** Services the setup receives. */
  readonly deps?: D;
  /** Services the setup provides to later plugins. */
  readonly provides?: readonly ServiceToken<unknown>[];
  /**
   * Imports the implementation, e.g. `() => import('./setup.js')`. Its types follow from `deps`
   * (and the config type given to {@link definePlugin}), never the other way round.
   */
  readonly setup: () => Promise<{ readonly default: PluginSetup<NoInfer<D>, NoInfer<C>> }>;
}

const PLUGIN_ID = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Declares a plugin.
 *
 * @example
 * ```ts
 * export default definePlugin({
 *   id: 'hello',
 *   coreApi: '^2.0.0',
 *   deps: { chain: CoreTokens.ChainInfo },
 *   setup: () => import('./setup.js'),
 * });
 * ```
 */
export function definePlugin<D extends ServiceDeps = Record<never, never>, C = Readonly<Record<string, unknown>>>(
  manifest: PluginManifest<D, C>,
): PluginManifest<D, C> {
  const problem = manifestProblem(manifest);
  if (problem !== undefined) throw new TypeError(`invalid plugin manifest: ${problem}`);
  return Object.freeze({ ...manifest });
}

/** What is wrong with a value exported as a manifest, or undefined when it is a valid one. */
export function manifestProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'the module does not export a manifest object';
  const manifest = value as Partial<PluginManifest>;
  if (typeof manifest.id !== 'string' || !PLUGIN_ID.test(manifest.id)) {
    return 'id must be lower-case letters, digits and dashes';
  }
  if (typeof manifest.coreApi !== 'string') return `plugin ${manifest.id} must declare coreApi, a semver range`;
  if (typeof manifest.setup !== 'function')
    return `plugin ${manifest.id} must declare setup: () => import('./setup.js')`;
  for (const field of ['dependsOn', 'tags', 'provides'] as const) {
    if (manifest[field] !== undefined && !Array.isArray(manifest[field]))
      return `plugin ${manifest.id}: ${field} must be an array`;
  }
  return undefined;
}

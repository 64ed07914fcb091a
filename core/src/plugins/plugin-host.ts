import type { Logger } from 'pino';
import type { PluginContext, PluginLifecycle, PluginManifest } from './define-plugin.js';
import type { LoadedPlugin } from './plugin-loader.js';
import type { NodeConfig } from '../config/load-config.js';
import type { DependencyContainer } from '../di/container.js';
import { tokenName, type ServiceToken } from '../di/service-token.js';
import { StartupError } from '../node/startup-error.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import type { RequestHooks } from '../rpc/request-hooks.js';

interface SetUpPlugin {
  readonly id: string;
  readonly lifecycle: PluginLifecycle;
}

/** What the host needs from the node to set plugins up. */
export interface PluginHostServices {
  readonly container: DependencyContainer;
  readonly registry: MethodRegistry;
  readonly hooks: RequestHooks;
  readonly config: NodeConfig;
  readonly logger: Logger;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Runs plugins' setup, each in its own child container, then their start and stop hooks. */
export class PluginHost {
  readonly #setUp: SetUpPlugin[] = [];
  readonly #started: SetUpPlugin[] = [];

  constructor(private readonly services: PluginHostServices) {}

  /** Sets the plugins up in order; the node refuses to start if one fails or takes longer than `timeoutMs`. */
  async setUp(plugins: readonly LoadedPlugin[], timeoutMs: number): Promise<void> {
    for (const { manifest } of plugins) {
      const lifecycle = await withTimeout(
        this.#setUpOne(manifest),
        timeoutMs,
        () =>
          new StartupError(
            `plugin "${manifest.id}" did not finish its setup within ${timeoutMs} ms: ` +
              'fix the plugin, or raise [node] plugin_setup_timeout.',
          ),
      );
      this.#setUp.push({ id: manifest.id, lifecycle });
    }
  }

  /** Runs every start hook in plugin order. */
  async start(): Promise<void> {
    for (const plugin of this.#setUp) {
      try {
        await plugin.lifecycle.start?.();
      } catch (error) {
        throw new StartupError(`plugin "${plugin.id}" failed to start: ${(error as Error).message}`, { cause: error });
      }
      this.#started.push(plugin);
    }
  }

  /** Runs the stop hooks of started plugins in reverse order; a failure is logged and the rest still stop. */
  async stop(): Promise<void> {
    for (const plugin of this.#started.splice(0).reverse()) {
      try {
        await plugin.lifecycle.stop?.();
      } catch (error) {
        this.services.logger.error({ err: error, plugin: plugin.id }, 'plugin failed to stop');
      }
    }
  }

  async #setUpOne(manifest: PluginManifest): Promise<PluginLifecycle> {
    const { container, registry, hooks, config, logger, home, env } = this.services;
    const own = container.createChildContainer();
    const deps: Record<string, unknown> = {};
    for (const [name, token] of Object.entries(manifest.deps ?? {})) {
      if (!own.isRegistered(token, true)) {
        throw new StartupError(
          // orderPlugins refuses a service nothing provides; this guards a core token core did not register.
          `plugin "${manifest.id}" needs the service ${tokenName(token)}, which was not provided before its setup.`,
        );
      }
      deps[name] = own.resolve(token);
    }
    const provided = new Set<ServiceToken<unknown>>();
    const context: PluginContext = {
      id: manifest.id,
      config: config.plugin(manifest.id),
      home,
      env,
      deps,
      logger: logger.child({ plugin: manifest.id }),
      rpc: {
        register: (methods, options) => registry.register(manifest.id, methods, options?.transports),
        addHook: (hook) => hooks.add(hook),
      },
      provide: (token, service) => {
        if (!(manifest.provides ?? []).includes(token)) {
          throw new Error(`it provides ${tokenName(token)} without declaring it in its manifest's provides`);
        }
        if (container.isRegistered(token, true))
          throw new Error(`${tokenName(token)} is already provided by another plugin`);
        own.register(token, { useValue: service });
        container.register(token, { useValue: service });
        provided.add(token);
      },
    };
    let lifecycle: void | PluginLifecycle;
    try {
      const { default: setup } = await manifest.setup();
      lifecycle = await setup(context);
    } catch (error) {
      throw new StartupError(`plugin "${manifest.id}" failed during setup: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const missing = (manifest.provides ?? []).filter((token) => !provided.has(token));
    if (missing.length > 0) {
      throw new StartupError(
        `plugin "${manifest.id}" declares that it provides ${missing.map(tokenName).join(', ')}, but its setup did not provide it.`,
      );
    }
    return lifecycle ?? {};
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(onTimeout()), timeoutMs)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

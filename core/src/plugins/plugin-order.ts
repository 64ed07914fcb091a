// The two functions alone: semver's index loads all 47 of its modules at every start.
import satisfies from 'semver/functions/satisfies.js';
import validRange from 'semver/ranges/valid.js';
import type { LoadedPlugin } from './plugin-loader.js';
import { tokenName, type ServiceToken } from '../di/service-token.js';
import { CoreTokens } from '../node/core-tokens.js';
import { StartupError } from '../node/startup-error.js';

/** The plugins to set up, in order, and those switched off by tag. */
export interface PluginOrder {
  readonly active: readonly LoadedPlugin[];
  readonly disabled: readonly { readonly plugin: LoadedPlugin; readonly tag: string }[];
}

type DisabledPlugin = PluginOrder['disabled'][number];

/** One plugin that must be set up before another: named in its `dependsOn`, or providing one of its `deps`. */
interface Prerequisite {
  readonly id: string;
  /** The service that makes it one, when it is not named in `dependsOn`. */
  readonly token?: ServiceToken<unknown>;
}

/** Services core registers before any plugin is set up: no plugin has to provide them. */
const CORE_PROVIDED: ReadonlySet<ServiceToken<unknown>> = new Set(Object.values(CoreTokens));

/**
 * Checks the listed plugins and orders them so that each comes after the plugins it depends on
 * and those that provide the services it needs, ties broken by the operator's order. Refuses,
 * naming the plugin and the fix, on a duplicate id, an unsupported core API, a missing dependency,
 * a service nothing (or more than one plugin) provides, or a cycle.
 */
export function orderPlugins(
  listed: readonly LoadedPlugin[],
  disableTags: readonly string[],
  coreApiVersion: string,
): PluginOrder {
  const byId = new Map<string, LoadedPlugin>();
  for (const plugin of listed) {
    const { id } = plugin.manifest;
    const earlier = byId.get(id);
    if (earlier !== undefined) {
      throw new StartupError(
        `plugin id "${id}" is given twice in [node] plugins (by "${earlier.entry}" and "${plugin.entry}"): keep only one of them.`,
      );
    }
    byId.set(id, plugin);
  }

  const disabled: DisabledPlugin[] = [];
  const active: LoadedPlugin[] = [];
  for (const plugin of listed) {
    const tag = plugin.manifest.tags?.find((candidate) => disableTags.includes(candidate));
    if (tag === undefined) active.push(plugin);
    else disabled.push({ plugin, tag });
  }

  for (const { manifest } of active) {
    if (validRange(manifest.coreApi) === null || !satisfies(coreApiVersion, manifest.coreApi)) {
      throw new StartupError(
        `plugin "${manifest.id}" supports core API ${manifest.coreApi}, but this evmnode provides ${coreApiVersion}: ` +
          'install a version of the plugin built for this evmnode, or remove it from [node] plugins.',
      );
    }
  }

  const activeIds = new Set(active.map((plugin) => plugin.manifest.id));
  for (const { manifest } of active) {
    for (const dependency of manifest.dependsOn ?? []) {
      if (activeIds.has(dependency)) continue;
      const off = disabled.find(({ plugin }) => plugin.manifest.id === dependency);
      throw new StartupError(
        off === undefined
          ? `plugin "${manifest.id}" depends on "${dependency}", which is not loaded: add "${dependency}" to [node] plugins.`
          : `plugin "${manifest.id}" depends on "${dependency}", which [node] disable_tags switches off (tag "${off.tag}"): ` +
              `remove "${off.tag}" from disable_tags, or remove "${manifest.id}" from [node] plugins.`,
      );
    }
  }

  const providers = providersOf(active);
  const prerequisites = new Map(
    active.map((plugin) => [plugin.manifest.id, prerequisitesOf(plugin, providers, disabled)]),
  );
  return { active: topologicalOrder(active, prerequisites), disabled };
}

/** The plugin providing each token; refuses a token two plugins provide. */
function providersOf(plugins: readonly LoadedPlugin[]): Map<ServiceToken<unknown>, LoadedPlugin> {
  const providers = new Map<ServiceToken<unknown>, LoadedPlugin>();
  for (const plugin of plugins) {
    for (const token of plugin.manifest.provides ?? []) {
      const other = providers.get(token);
      if (other !== undefined) {
        throw new StartupError(
          `plugins "${other.manifest.id}" and "${plugin.manifest.id}" both provide the service ${tokenName(token)}: ` +
            'remove one of them from [node] plugins.',
        );
      }
      providers.set(token, plugin);
    }
  }
  return providers;
}

/** The plugins to set up before this one; refuses a service that neither core nor a loaded plugin provides. */
function prerequisitesOf(
  plugin: LoadedPlugin,
  providers: ReadonlyMap<ServiceToken<unknown>, LoadedPlugin>,
  disabled: readonly DisabledPlugin[],
): Prerequisite[] {
  const { manifest } = plugin;
  const prerequisites: Prerequisite[] = (manifest.dependsOn ?? []).map((id) => ({ id }));
  for (const token of Object.values(manifest.deps ?? {})) {
    if (CORE_PROVIDED.has(token)) continue;
    const provider = providers.get(token);
    if (provider === undefined) throw new StartupError(missingProviderMessage(manifest.id, token, providers, disabled));
    if (!prerequisites.some(({ id }) => id === provider.manifest.id))
      prerequisites.push({ id: provider.manifest.id, token });
  }
  return prerequisites;
}

function missingProviderMessage(
  id: string,
  token: ServiceToken<unknown>,
  providers: ReadonlyMap<ServiceToken<unknown>, LoadedPlugin>,
  disabled: readonly DisabledPlugin[],
): string {
  const service = tokenName(token);
  const off = disabled.find(({ plugin }) => plugin.manifest.provides?.includes(token));
  if (off !== undefined) {
    return (
      `plugin "${id}" needs the service ${service}, which plugin "${off.plugin.manifest.id}" provides, but [node] disable_tags ` +
      `switches it off (tag "${off.tag}"): remove "${off.tag}" from disable_tags, or remove "${id}" from [node] plugins.`
    );
  }
  // Tokens are compared by identity: one of the same name means two copies of the module defining it.
  if ([...CORE_PROVIDED].some((core) => tokenName(core) === service)) {
    return (
      `plugin "${id}" needs the service ${service} of another copy of @evmnode/core than the node's: ` +
      'make @evmnode/core a peer dependency of the plugin, and import it from an ES module.'
    );
  }
  const namesake = [...providers].find(([other]) => other !== token && tokenName(other) === service)?.[1];
  if (namesake !== undefined) {
    return (
      `plugin "${id}" needs the service ${service}, and plugin "${namesake.manifest.id}" provides a service of that name, ` +
      'but from another copy of the module that defines it: install one copy of the package that defines the token, ' +
      'as a peer dependency of both plugins.'
    );
  }
  return (
    `plugin "${id}" needs the service ${service}, which neither core nor any plugin in [node] plugins provides: ` +
    'add the plugin that provides it to [node] plugins.'
  );
}

/** Kahn's algorithm, always taking the earliest-listed plugin whose prerequisites are all placed. */
function topologicalOrder(
  plugins: readonly LoadedPlugin[],
  prerequisites: ReadonlyMap<string, readonly Prerequisite[]>,
): LoadedPlugin[] {
  const ordered: LoadedPlugin[] = [];
  const placed = new Set<string>();
  const remaining = [...plugins];
  while (remaining.length > 0) {
    const index = remaining.findIndex((plugin) =>
      prerequisites.get(plugin.manifest.id)!.every(({ id }) => placed.has(id)),
    );
    if (index === -1) throw new StartupError(describeCycle(remaining, prerequisites));
    const [next] = remaining.splice(index, 1);
    ordered.push(next!);
    placed.add(next!.manifest.id);
  }
  return ordered;
}

/** Names one cycle among plugins none of which can be placed, with the service behind each step that has one. */
function describeCycle(
  blocked: readonly LoadedPlugin[],
  prerequisites: ReadonlyMap<string, readonly Prerequisite[]>,
): string {
  const blockedIds = new Set(blocked.map((plugin) => plugin.manifest.id));
  const label = ({ id, token }: Prerequisite) => (token === undefined ? id : `${id} (service ${tokenName(token)})`);
  const path: Prerequisite[] = [{ id: blocked[0]!.manifest.id }];
  for (;;) {
    // Every blocked plugin waits for at least one other blocked plugin.
    const next = prerequisites.get(path.at(-1)!.id)!.find(({ id }) => blockedIds.has(id))!;
    const start = path.findIndex(({ id }) => id === next.id);
    if (start !== -1) {
      const cycle = [path[start]!.id, ...path.slice(start + 1).map(label), label(next)];
      return (
        `plugins depend on each other in a cycle: ${cycle.join(' -> ')}. ` +
        `Remove one of these dependencies, or remove one of the plugins from [node] plugins.`
      );
    }
    path.push(next);
  }
}

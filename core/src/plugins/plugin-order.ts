// The two functions alone: semver's index loads all 47 of its modules at every start.
import satisfies from 'semver/functions/satisfies.js';
import validRange from 'semver/ranges/valid.js';
import type { LoadedPlugin } from './plugin-loader.js';
import { StartupError } from '../node/startup-error.js';

/** The plugins to set up, in order, and those switched off by tag. */
export interface PluginOrder {
  readonly active: readonly LoadedPlugin[];
  readonly disabled: readonly { readonly plugin: LoadedPlugin; readonly tag: string }[];
}

/**
 * Checks the listed plugins and orders them so that each comes after its dependencies, ties
 * broken by the operator's order. Refuses, naming the plugin and the fix, on a duplicate id, an
 * unsupported core API, a missing dependency or a dependency cycle.
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

  const disabled: { plugin: LoadedPlugin; tag: string }[] = [];
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

  return { active: topologicalOrder(active), disabled };
}

/** Kahn's algorithm, always taking the earliest-listed plugin whose dependencies are all placed. */
function topologicalOrder(plugins: readonly LoadedPlugin[]): LoadedPlugin[] {
  const ordered: LoadedPlugin[] = [];
  const placed = new Set<string>();
  const remaining = [...plugins];
  while (remaining.length > 0) {
    const index = remaining.findIndex((plugin) =>
      (plugin.manifest.dependsOn ?? []).every((dependency) => placed.has(dependency)),
    );
    if (index === -1) throw new StartupError(describeCycle(remaining));
    const [next] = remaining.splice(index, 1);
    ordered.push(next!);
    placed.add(next!.manifest.id);
  }
  return ordered;
}

/** Names one cycle among plugins none of which can be placed. */
function describeCycle(blocked: readonly LoadedPlugin[]): string {
  const byId = new Map(blocked.map((plugin) => [plugin.manifest.id, plugin]));
  const path: string[] = [];
  let current = blocked[0]!;
  while (!path.includes(current.manifest.id)) {
    path.push(current.manifest.id);
    const next = (current.manifest.dependsOn ?? []).find((dependency) => byId.has(dependency));
    current = byId.get(next!)!;
  }
  const cycle = [...path.slice(path.indexOf(current.manifest.id)), current.manifest.id];
  return (
    `plugins depend on each other in a cycle: ${cycle.join(' -> ')}. ` +
    `Remove one of these dependencies, or remove one of the plugins from [node] plugins.`
  );
}

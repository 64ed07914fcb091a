import { readFileSync, statSync } from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { manifestProblem, type PluginManifest } from './define-plugin.js';
import { StartupError } from '../node/startup-error.js';

/** A manifest and the `[node] plugins` entry it came from. */
export interface LoadedPlugin {
  readonly entry: string;
  readonly manifest: PluginManifest;
}

/** The package name of a built-in plugin: `eth-query` -> `@evmnode/plugin-eth-query`. */
export function builtInPackageOf(name: string): string {
  return `@evmnode/plugin-${name}`;
}

function isPath(entry: string): boolean {
  return entry.startsWith('.') || path.isAbsolute(entry);
}

/** The module file of a plugin folder: its package.json `exports` or `main`, else index.js. */
function moduleOfFolder(folder: string): string {
  let packageJson: { exports?: unknown; main?: unknown } = {};
  try {
    packageJson = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as typeof packageJson;
  } catch {
    // A folder without package.json is served by its index.js.
  }
  const exported =
    typeof packageJson.exports === 'object' && packageJson.exports !== null
      ? (packageJson.exports as Record<string, unknown>)['.']
      : packageJson.exports;
  const target =
    typeof exported === 'string'
      ? exported
      : typeof exported === 'object' && exported !== null
        ? ((exported as Record<string, unknown>).import ?? (exported as Record<string, unknown>).default)
        : packageJson.main;
  return path.join(folder, typeof target === 'string' ? target : 'index.js');
}

/** The module an entry names, and whether it is a built-in plugin. */
interface ResolvedEntry {
  readonly entry: string;
  readonly url: string;
  /** An `@evmnode/plugin-*` package: it depends on this very version of core, so npm installs it one copy. */
  readonly builtIn: boolean;
}

/** The module an entry names, or undefined when nothing by that name exists. */
function resolveEntry(entry: string): ResolvedEntry | undefined {
  if (isPath(entry)) {
    const absolute = path.resolve(entry);
    try {
      const file = statSync(absolute).isDirectory() ? moduleOfFolder(absolute) : absolute;
      return { entry, url: pathToFileURL(file).href, builtIn: false };
    } catch {
      return undefined;
    }
  }
  for (const specifier of [builtInPackageOf(entry), entry]) {
    try {
      return { entry, url: import.meta.resolve(specifier), builtIn: specifier.startsWith(builtInPackageOf('')) };
    } catch {
      // Not this one; try the next form of the name.
    }
  }
  return undefined;
}

let coreShared = false;

/**
 * Registers core-resolve-hook.js, once per process: from then on every import of core, by any
 * module, gets this copy. Only for plugins other than the built-in ones, which depend on this very
 * core: the hook runs on a loader thread of its own, which costs about 0.15 s of CPU at start-up.
 */
function shareCoreWithPlugins(): void {
  if (coreShared) return;
  register('./core-resolve-hook.js', import.meta.url);
  coreShared = true;
}

/**
 * Imports the manifest of each `[node] plugins` entry: a built-in name, a package name, or a path
 * (relative to the working directory) to a plugin folder or module. Only manifests are imported,
 * and whatever copy of `@evmnode/core` a plugin would find, it imports this one.
 */
export async function loadPlugins(entries: readonly string[]): Promise<LoadedPlugin[]> {
  const resolved = entries.map((entry) => {
    const found = resolveEntry(entry);
    if (found === undefined) {
      throw new StartupError(
        `plugin "${entry}" in [node] plugins was not found: it is not a built-in plugin (${builtInPackageOf(entry)}), ` +
          'an installed package, or an existing path. Correct the name, install the package, or give the path to its folder.',
      );
    }
    return found;
  });
  if (resolved.some(({ builtIn }) => !builtIn)) shareCoreWithPlugins();
  const loaded: LoadedPlugin[] = [];
  for (const { entry, url } of resolved) {
    let module: { default?: unknown };
    try {
      module = (await import(url)) as { default?: unknown };
    } catch (error) {
      throw new StartupError(`plugin "${entry}" could not be imported: ${(error as Error).message}`, { cause: error });
    }
    const problem = manifestProblem(module.default);
    if (problem !== undefined) {
      throw new StartupError(`plugin "${entry}" does not export a valid manifest as default: ${problem}`);
    }
    loaded.push({ entry, manifest: module.default as PluginManifest });
  }
  return loaded;
}

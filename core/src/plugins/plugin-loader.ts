import { readFileSync, statSync } from 'node:fs';
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

/** The module URL an entry names, or undefined when nothing by that name exists. */
function resolveEntry(entry: string): string | undefined {
  if (isPath(entry)) {
    const absolute = path.resolve(entry);
    try {
      return pathToFileURL(statSync(absolute).isDirectory() ? moduleOfFolder(absolute) : absolute).href;
    } catch {
      return undefined;
    }
  }
  for (const specifier of [builtInPackageOf(entry), entry]) {
    try {
      return import.meta.resolve(specifier);
    } catch {
      // Not this one; try the next form of the name.
    }
  }
  return undefined;
}

/**
 * Imports the manifest of each `[node] plugins` entry: a built-in name, a package name, or a path
 * (relative to the working directory) to a plugin folder or module. Only manifests are imported.
 */
export async function loadPlugins(entries: readonly string[]): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  for (const entry of entries) {
    const url = resolveEntry(entry);
    if (url === undefined) {
      throw new StartupError(
        `plugin "${entry}" in [node] plugins was not found: it is not a built-in plugin (${builtInPackageOf(entry)}), ` +
          'an installed package, or an existing path. Correct the name, install the package, or give the path to its folder.',
      );
    }
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

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import { StartupError } from '../node/startup-error.js';

/**
 * The operator profiles (`evmnode start --profile NAME`): `config/profiles/<NAME>.toml` at the top
 * of the repository, each the keys of one kind of node (which plugins, which tags off, archive or
 * pruned state). The same path from `src/config` and `dist/config`.
 */
export const PROFILES_FOLDER = fileURLToPath(new URL('../../../config/profiles/', import.meta.url));

/** The names of the profiles there are, sorted. */
export function profileNames(): string[] {
  return readdirSync(PROFILES_FOLDER)
    .filter((file) => file.endsWith('.toml'))
    .map((file) => file.slice(0, -'.toml'.length))
    .sort();
}

/** The keys of profile `name`, as a nested object; an unknown name stops the node, listing the known ones. */
export function readProfile(name: string): Record<string, unknown> {
  const names = profileNames();
  if (!names.includes(name)) throw new StartupError(`unknown profile "${name}"; the profiles are ${names.join(', ')}`);
  const file = `${PROFILES_FOLDER}${name}.toml`;
  try {
    return parseToml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new StartupError(`the profile ${file} is not valid TOML: ${(error as Error).message}`);
  }
}

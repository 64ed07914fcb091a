import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { StartupError } from '../node/startup-error.js';

/**
 * Where configuration comes from, lowest precedence first: the network's defaults, the file, the
 * operator profile, environment, flags, overrides. The profile wins over the file because
 * `evmnode init` writes every key there; environment and flags still override it key by key.
 */
export interface ConfigSources {
  /** The node's home folder; `<home>/config/app.toml` is read when `configFile` is not given. */
  readonly home: string;
  /** An explicit config file (`--config FILE`); it must exist. */
  readonly configFile?: string | undefined;
  /** An operator profile of `config/profiles` (`--profile NAME`). */
  readonly profile?: string | undefined;
  /** Ignore the config file (when it is about to be written anew). */
  readonly skipFile?: boolean;
  /** Environment variables; only `EVMNODE_*` ones are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Command-line flags such as `--evm.http_port 9000` or `--evm.slow=true`. */
  readonly flags: readonly string[];
  /** Values set by the embedding program (tests), as a nested object; they win over everything. */
  readonly overrides?: Readonly<Record<string, unknown>> | undefined;
}

export const ENV_PREFIX = 'EVMNODE_';

/** The configuration file's path for these sources. */
export function configFilePath(sources: Pick<ConfigSources, 'home' | 'configFile'>): string {
  return sources.configFile ?? path.join(sources.home, 'config', 'app.toml');
}

/** Reads and parses the TOML config file; a missing default file is an empty configuration. */
export function readConfigFile(sources: ConfigSources): Record<string, unknown> {
  if (sources.skipFile === true) return {};
  const file = configFilePath(sources);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && sources.configFile === undefined) return {};
    throw new StartupError(`cannot read the config file ${file}: ${(error as Error).message}`);
  }
  try {
    return parseToml(text);
  } catch (error) {
    throw new StartupError(`the config file ${file} is not valid TOML: ${(error as Error).message}`);
  }
}

/** Splits `--a.b value`, `--a.b=value` and a bare `--a.b` (true) into dotted keys and values. */
export function parseFlags(flags: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (let index = 0; index < flags.length; index++) {
    const flag = flags[index]!;
    if (!flag.startsWith('--') || flag.length === 2) {
      throw new StartupError(`unexpected argument "${flag}": options look like --<section>.<key> <value>`);
    }
    const equals = flag.indexOf('=');
    if (equals !== -1) {
      values.set(flag.slice(2, equals), flag.slice(equals + 1));
      continue;
    }
    const next = flags[index + 1];
    if (next !== undefined && !next.startsWith('--')) {
      values.set(flag.slice(2), next);
      index++;
    } else {
      values.set(flag.slice(2), 'true');
    }
  }
  return values;
}

/** The environment variable that sets a dotted key: `evm.http_port` -> `EVMNODE_EVM_HTTP_PORT`. */
export function envNameOf(key: string): string {
  return ENV_PREFIX + key.toUpperCase().replace(/[.-]/g, '_');
}

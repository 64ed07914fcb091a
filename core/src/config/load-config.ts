import convict from 'convict';
import { coreSchema, type CoreConfig } from './core-schema.js';
import { ENV_PREFIX, envNameOf, parseFlags, readConfigFile, type ConfigSources } from './config-sources.js';
import { registerConfigFormats } from './formats.js';
import { readProfile } from './operator-profiles.js';
import { NETWORK_PROFILES, NETWORKS, type NetworkName } from './profiles.js';
import { nestDottedKeys, schemaLeaves, type ConfigSchema } from './schema-tree.js';
import { StartupError } from '../node/startup-error.js';

/** The node's validated configuration. */
export interface NodeConfig {
  readonly core: CoreConfig;
  /** The full schema it was validated against (core sections plus mounted plugin fragments). */
  readonly schema: ConfigSchema;
  /** The validated section `[plugins.<id>]` of a plugin (an empty object when it has none). */
  plugin(id: string): Readonly<Record<string, unknown>>;
  /** Every value, for writing a config file; sensitive values are included. */
  values(): Record<string, unknown>;
}

/** The raw layers read once from the sources and reused for every validation pass. */
interface ConfigLayers {
  readonly file: Record<string, unknown>;
  readonly profile: Record<string, unknown>;
  readonly env: ReadonlyMap<string, string>;
  readonly flags: ReadonlyMap<string, string>;
  readonly overrides: Readonly<Record<string, unknown>>;
}

export function readConfigLayers(sources: ConfigSources): ConfigLayers {
  const env = new Map<string, string>();
  for (const [name, value] of Object.entries(sources.env)) {
    if (name.startsWith(ENV_PREFIX) && value !== undefined) env.set(name, value);
  }
  return {
    file: readConfigFile(sources),
    profile: sources.profile === undefined ? {} : readProfile(sources.profile),
    env,
    flags: parseFlags(sources.flags),
    overrides: sources.overrides ?? {},
  };
}

function networkOf(layers: ConfigLayers): NetworkName {
  const nodeSection = (layer: Readonly<Record<string, unknown>>) => layer.node as Record<string, unknown> | undefined;
  const chosen =
    nodeSection(layers.overrides)?.network ??
    layers.flags.get('node.network') ??
    layers.env.get(envNameOf('node.network')) ??
    nodeSection(layers.profile)?.network ??
    nodeSection(layers.file)?.network;
  if (chosen === undefined) return 'local';
  if (typeof chosen === 'string' && (NETWORKS as readonly string[]).includes(chosen)) return chosen as NetworkName;
  throw new StartupError(`node.network must be one of ${NETWORKS.join(', ')}; got ${JSON.stringify(chosen)}`);
}

/**
 * Validates the layers against `schema`. With `strict`, a key that the schema does not declare
 * (a typo in app.toml, an unknown EVMNODE_ variable or flag) stops the node, naming it.
 */
function validate(schema: ConfigSchema, layers: ConfigLayers, strict: boolean): convict.Config<unknown> {
  registerConfigFormats();
  const config = convict(schema as convict.Schema<unknown>, { env: {}, args: [] });
  const keys = new Set(schemaLeaves(schema).map((leaf) => leaf.key));
  const envByName = new Map([...keys].map((key) => [envNameOf(key), key]));

  const fromEnv = new Map<string, string>();
  for (const [name, value] of layers.env) {
    const key = envByName.get(name);
    if (key !== undefined) fromEnv.set(key, value);
    else if (strict) throw new StartupError(`unknown environment variable ${name}: no configuration key matches it`);
  }
  const fromFlags = new Map<string, string>();
  for (const [key, value] of layers.flags) {
    if (keys.has(key)) fromFlags.set(key, value);
    else if (strict) throw new StartupError(`unknown option --${key}: no configuration key [${key}] exists`);
  }

  const profile = new Map(Object.entries(NETWORK_PROFILES[networkOf(layers)]));
  for (const layer of [
    nestDottedKeys(profile),
    layers.file,
    layers.profile,
    nestDottedKeys(fromEnv),
    nestDottedKeys(fromFlags),
    layers.overrides,
  ]) {
    config.load(layer);
  }
  try {
    config.validate({ allowed: strict ? 'strict' : 'warn', output: () => undefined });
  } catch (error) {
    throw new StartupError(`invalid configuration: ${(error as Error).message}`);
  }
  checkUnfinishedBound(config);
  return config;
}

/** A request body is counted among the unfinished ones while it arrives: a bound below one body refuses it always. */
function checkUnfinishedBound(config: convict.Config<unknown>): void {
  const get = (key: string) => config.get(key as never) as number;
  const [unfinished, body] = [get('evm.max_unfinished_request_bytes'), get('evm.max_request_body_bytes')];
  if (unfinished < body) {
    throw new StartupError(
      `invalid configuration: evm.max_unfinished_request_bytes (${unfinished}) must be at least ` +
        `evm.max_request_body_bytes (${body}): a request body that large would always be refused`,
    );
  }
}

/**
 * First pass: the core sections alone, enough to know which plugins to load. Keys of plugin
 * sections are not known yet, so unknown keys are tolerated here and rejected by {@link loadNodeConfig}.
 */
export function loadCoreConfig(layers: ConfigLayers): CoreConfig {
  return validate(coreSchema, layers, false).getProperties() as CoreConfig;
}

/** Second pass: core sections and every plugin fragment mounted at `plugins.<id>`, validated strictly. */
export function loadNodeConfig(layers: ConfigLayers, fragments: ReadonlyMap<string, ConfigSchema>): NodeConfig {
  const plugins: Record<string, ConfigSchema> = {};
  for (const [id, fragment] of fragments) plugins[id] = fragment;
  const schema: ConfigSchema = { ...coreSchema, plugins };
  let config: convict.Config<unknown>;
  try {
    config = validate(schema, layers, true);
  } catch (error) {
    const plugin = [...fragments.keys()].find((id) => (error as Error).message.includes(`plugins.${id}.`));
    if (plugin === undefined) throw error;
    throw new StartupError(
      `plugin "${plugin}" has an ${(error as Error).message}; fix [plugins.${plugin}] in app.toml.`,
    );
  }
  const values = config.getProperties() as Record<string, unknown>;
  const pluginValues = (values.plugins ?? {}) as Record<string, Record<string, unknown>>;
  return {
    core: values as unknown as CoreConfig,
    schema,
    plugin: (id) => pluginValues[id] ?? {},
    values: () => structuredClone(values),
  };
}

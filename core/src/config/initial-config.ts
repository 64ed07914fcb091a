import { renderAppToml } from './app-toml.js';
import type { ConfigSources } from './config-sources.js';
import { resolveNodeSetup } from '../node/evm-node.js';
import { EVMNODE_VERSION } from '../version.js';

/**
 * The app.toml `evmnode init` writes for these sources: every key of core and of the listed
 * plugins, with its documentation and value. Any existing config file is ignored.
 */
export async function initialAppToml(sources: ConfigSources): Promise<string> {
  const { config } = await resolveNodeSetup({ ...sources, skipFile: true });
  const header = `# evmnode ${EVMNODE_VERSION} configuration: every key with its documentation and value.
# Environment variables EVMNODE_<SECTION>_<KEY> and flags --<section>.<key> override this file.`;
  return renderAppToml(config.schema, config.values(), header);
}

import { renderAppToml } from './app-toml.js';
import { builtInGenesis, genesisToJson, type GenesisJson } from '../chain/genesis.js';
import type { ConfigSources } from './config-sources.js';
import { resolveNodeSetup } from '../node/evm-node.js';
import { EVMNODE_VERSION } from '../version.js';

/** What `evmnode init` writes: app.toml and the network's genesis. */
export interface InitialConfig {
  /** Every key of core and of the listed plugins, with its documentation and value. */
  readonly appToml: string;
  readonly genesis: GenesisJson;
}

/** The files `evmnode init` writes for these sources; any existing config file is ignored. */
export async function initialConfig(sources: ConfigSources): Promise<InitialConfig> {
  const { config } = await resolveNodeSetup({ ...sources, skipFile: true });
  const { network, chain_id } = config.core.node;
  const header = `# evmnode ${EVMNODE_VERSION} configuration: every key with its documentation and value.
# Environment variables EVMNODE_<SECTION>_<KEY> and flags --<section>.<key> override this file.`;
  return {
    appToml: renderAppToml(config.schema, config.values(), header),
    genesis: genesisToJson(builtInGenesis(network, BigInt(chain_id))),
  };
}

import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { chainIdMethods } from './methods/chain-id.js';
import { chainReadMethods } from './methods/chain-reads.js';
import { clientVersion } from './methods/client-version.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  rpc.register([...chainIdMethods(deps.info), clientVersion, ...chainReadMethods(deps.chain)]);
};

export default setup;

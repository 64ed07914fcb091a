import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { chainIdMethods } from './methods/chain-id.js';
import { chainReadMethods } from './methods/chain-reads.js';
import { clientVersion } from './methods/client-version.js';
import { proofMethod } from './methods/proof.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  rpc.register([...chainIdMethods(deps.info), clientVersion, ...chainReadMethods(deps.chain)]);
  rpc.register([proofMethod(deps.chain, deps.config.evm.max_proof_keys)]);
};

export default setup;

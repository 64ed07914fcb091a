import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { contentMethod } from './methods/content.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  rpc.register([contentMethod(deps.pool, deps.views, deps.config.evm.max_tx_pool_txs)], { transports: ['http'] });
};

export default setup;

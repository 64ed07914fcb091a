import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { contentMethod } from './methods/content.js';
import { PooledJsonCache } from './pooled-json.js';

const setup: PluginSetup<Deps> = ({ deps, rpc }) => {
  const content = contentMethod(
    deps.pool,
    new PooledJsonCache(deps.views),
    deps.heldAnswers,
    deps.config.evm.max_tx_pool_txs,
  );
  rpc.register([content], { transports: ['http'] });
};

export default setup;

import { definePlugin } from '@evmnode/core';
import { deps } from './deps.js';

/** Read-only `eth_`, `net_` and `web3_` methods. */
export default definePlugin({
  id: 'eth-query',
  coreApi: '^2.0.0',
  deps,
  setup: () => import('./setup.js'),
});

import { definePlugin } from '@evmnode/core';
import { deps } from './deps.js';

/** Submitting signed transactions: `eth_sendRawTransaction`. */
export default definePlugin({
  id: 'eth-send',
  coreApi: '^2.0.0',
  deps,
  setup: () => import('./setup.js'),
});

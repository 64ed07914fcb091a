import { definePlugin } from '@evmnode/core';
import { deps } from './deps.js';

/**
 * The deprecated `ext_` namespace, HTTP-only (decisions.md D1, D2): the `eth_` block, receipt and
 * transaction methods over the EVM-plus-synthetic `ext` view, association lookups, the native
 * transaction wrapping an EVM one, `ext_sign` and the nonce and VM-error namesakes. Tag `legacy`.
 */
export default definePlugin({
  id: 'ext-legacy',
  coreApi: '^2.3.0',
  tags: ['legacy'],
  deps,
  setup: () => import('./setup.js'),
});

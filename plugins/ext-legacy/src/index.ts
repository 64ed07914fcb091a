import { definePlugin } from '@evmnode/core';
import { deps } from './deps.js';

export { excludeTraceFailBlockMethods } from './methods/exclude-trace-fail.js';

/**
 * The deprecated `ext_` namespace, HTTP-only (decisions.md D1, D2): the `eth_` block, receipt and
 * transaction methods over the EVM-plus-synthetic `ext` view. Tag `legacy`.
 */
export default definePlugin({
  id: 'ext-legacy',
  coreApi: '^2.2.0',
  tags: ['legacy'],
  deps,
  setup: () => import('./setup.js'),
});

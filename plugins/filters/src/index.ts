import { definePlugin } from '@evmnode/core';
import { deps } from './deps.js';
import { FiltersTokens } from './tokens.js';

export { FiltersTokens } from './tokens.js';
export { FilterManager, filterLimitsOf, type FilterLimits } from './filter-manager.js';
export { filterMethods, type LogNamespace } from './methods.js';

/** `eth_getLogs` and the polled filters of interface.md §3 and §4.6. */
export default definePlugin({
  id: 'filters',
  coreApi: '^2.0.0',
  deps,
  provides: [FiltersTokens.FilterManager],
  setup: () => import('./setup.js'),
});

import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { FilterManager, filterLimitsOf } from './filter-manager.js';
import { filterMethods } from './methods.js';
import { FiltersTokens } from './tokens.js';

const setup: PluginSetup<Deps> = ({ deps, rpc, provide }) => {
  const filters = new FilterManager(deps.chain, deps.logQuery, filterLimitsOf(deps.config));
  provide(FiltersTokens.FilterManager, filters);
  rpc.register(filterMethods(filters, deps.logQuery, { prefix: 'eth', view: 'eth' }));
  return {
    start: () => filters.start(),
    stop: () => filters.stop(),
  };
};

export default setup;

import type { PluginSetup } from '@evmnode/core';
import type { Deps } from './deps.js';
import { FilterManager } from './filter-manager.js';
import { filterMethods } from './methods.js';
import { FiltersTokens } from './tokens.js';

const setup: PluginSetup<Deps> = ({ deps, rpc, provide }) => {
  const { evm } = deps.config;
  const filters = new FilterManager(deps.chain, deps.logQuery, {
    timeoutMs: evm.filter_timeout,
    maxFilters: evm.max_filters,
    clientShare: evm.max_client_share,
  });
  provide(FiltersTokens.FilterManager, filters);
  rpc.register(filterMethods(filters, deps.logQuery));
  return {
    start: () => filters.start(),
    stop: () => filters.stop(),
  };
};

export default setup;

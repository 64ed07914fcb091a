import type { ChainReader, CoreConfig, LogQuery } from '@evmnode/core';
import { FilterManager, filterLimitsOf, filterMethods } from '@evmnode/plugin-filters';

/**
 * `ext_getLogs` and the `ext_` filters (interface.md §4.11): the `eth_` definitions over the `ext`
 * view, which includes synthetic logs, and a filter registry of their own with the `eth_` limits,
 * so that an `eth_` filter id is unknown to `ext_getFilterChanges` and the reverse.
 */
export function extLogMethods({
  chain,
  logQuery,
  config,
}: {
  chain: ChainReader;
  logQuery: LogQuery;
  config: CoreConfig;
}) {
  const filters = new FilterManager(chain, logQuery, filterLimitsOf(config));
  return {
    methods: filterMethods(filters, logQuery, { prefix: 'ext', view: 'ext' }),
    start: () => filters.start(),
    stop: () => filters.stop(),
  };
}

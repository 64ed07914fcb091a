import { defineMethod, logCriteria, rpcId, type LogQuery } from '@evmnode/core';
import type { FilterManager } from './filter-manager.js';

/** §4.6: `eth_getLogs` and the polled filters. */
export function filterMethods(filters: FilterManager, logQuery: LogQuery) {
  return [
    defineMethod({
      name: 'eth_getLogs',
      params: [logCriteria],
      handler: ([criteria]) => logQuery.logs(criteria),
    }),
    defineMethod({
      name: 'eth_newFilter',
      params: [logCriteria],
      handler: ([criteria], request) => filters.newLogFilter(request.clientId, criteria),
    }),
    defineMethod({
      name: 'eth_newBlockFilter',
      params: [],
      handler: (_params, request) => filters.newBlockFilter(request.clientId),
    }),
    defineMethod({
      name: 'eth_getFilterChanges',
      params: [rpcId],
      handler: ([id]) => filters.changes(id),
    }),
    defineMethod({
      name: 'eth_getFilterLogs',
      params: [rpcId],
      handler: ([id]) => filters.logs(id),
    }),
    defineMethod({
      name: 'eth_uninstallFilter',
      params: [rpcId],
      handler: ([id]) => filters.uninstall(id),
    }),
  ];
}

import { defineMethod, logCriteria, rpcId, type LogQuery, type LogView } from '@evmnode/core';
import type { FilterManager } from './filter-manager.js';

/** Which namespace the log methods are served under, and whether their logs include synthetic ones. */
export interface LogNamespace {
  readonly prefix: 'eth' | 'ext';
  readonly view: LogView;
}

/**
 * §4.6 `eth_getLogs` and the polled filters, and their legacy `ext_` namesakes (§4.11), which
 * share these definitions over their own FilterManager and the `ext` view.
 */
export function filterMethods(filters: FilterManager, logQuery: LogQuery, { prefix, view }: LogNamespace) {
  return [
    defineMethod({
      name: `${prefix}_getLogs`,
      params: [logCriteria],
      handler: ([criteria], request) => logQuery.logs(criteria, view, request.clientId),
    }),
    defineMethod({
      name: `${prefix}_newFilter`,
      params: [logCriteria],
      handler: ([criteria], request) => filters.newLogFilter(request.clientId, criteria, view),
    }),
    defineMethod({
      name: `${prefix}_newBlockFilter`,
      params: [],
      handler: (_params, request) => filters.newBlockFilter(request.clientId),
    }),
    defineMethod({
      name: `${prefix}_getFilterChanges`,
      params: [rpcId],
      handler: ([id]) => filters.changes(id),
    }),
    defineMethod({
      name: `${prefix}_getFilterLogs`,
      params: [rpcId],
      handler: ([id]) => filters.logs(id),
    }),
    defineMethod({
      name: `${prefix}_uninstallFilter`,
      params: [rpcId],
      handler: ([id]) => filters.uninstall(id),
    }),
  ];
}

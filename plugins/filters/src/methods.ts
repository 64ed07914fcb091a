import { codec, CodecError, defineMethod, jsonKind, logCriteria, type LogQuery } from '@evmnode/core';
import type { FilterManager } from './filter-manager.js';

/** A filter ID (geth's `rpc.ID`): a string. */
const filterId = codec('rpc.ID', (value): string => {
  if (typeof value !== 'string') throw new CodecError(jsonKind(value), 'rpc.ID');
  return value;
});

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
      handler: ([criteria]) => filters.newLogFilter(criteria),
    }),
    defineMethod({
      name: 'eth_newBlockFilter',
      params: [],
      handler: () => filters.newBlockFilter(),
    }),
    defineMethod({
      name: 'eth_getFilterChanges',
      params: [filterId],
      handler: ([id]) => filters.changes(id),
    }),
    defineMethod({
      name: 'eth_getFilterLogs',
      params: [filterId],
      handler: ([id]) => filters.logs(id),
    }),
    defineMethod({
      name: 'eth_uninstallFilter',
      params: [filterId],
      handler: ([id]) => filters.uninstall(id),
    }),
  ];
}

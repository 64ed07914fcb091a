import { availableParallelism } from 'node:os';
import type { ResolvedDeps } from '@evmnode/core';
import type { Deps } from '../deps.js';
import { callNativeMethods } from './call-native.js';
import { estimateNativeGasMethods } from './estimate-native-gas.js';
import { queryEventsMethod } from './query-events.js';
import { queryStateMethod } from './query-state.js';
import { queryStorageMethod } from './query-storage.js';

/** The legacy state and event queries (docs/legacy-queries.md). */
export function queryMethods(deps: ResolvedDeps<Deps>) {
  return [
    queryStateMethod(deps.chain, deps.native),
    queryStorageMethod(deps.chain),
    queryEventsMethod(deps.chain, deps.native, deps.logQuery),
    ...callNativeMethods(deps.chain, deps.native),
    ...estimateNativeGasMethods(
      deps.native,
      deps.config.evm.max_concurrent_simulation_calls || availableParallelism(),
      deps.config.evm.max_client_share,
    ),
  ];
}

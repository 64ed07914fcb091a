import { CoreTokens } from '@evmnode/core';
import { DebugTraceTokens } from '@evmnode/plugin-debug-trace';

/** The services ext-legacy's setup receives. */
export const deps = {
  views: CoreTokens.ChainViews,
  chain: CoreTokens.ChainReader,
  logQuery: CoreTokens.LogQuery,
  config: CoreTokens.Config,
  traces: DebugTraceTokens.TraceService,
};

export type Deps = typeof deps;

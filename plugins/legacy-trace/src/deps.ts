import { CoreTokens } from '@evmnode/core';
import { DebugTraceTokens } from '@evmnode/plugin-debug-trace';

/** The services legacy-trace's setup receives. */
export const deps = { views: CoreTokens.ChainViews, traces: DebugTraceTokens.TraceService };

export type Deps = typeof deps;

import { CoreTokens } from '@evmnode/core';

/** The services debug-trace's setup receives. */
export const deps = {
  replayer: CoreTokens.Replayer,
  chain: CoreTokens.ChainReader,
  config: CoreTokens.Config,
  database: CoreTokens.Database,
  heldAnswers: CoreTokens.HeldAnswers,
};

export type Deps = typeof deps;

/** The validated `[plugins.debug-trace]` section, as the config fragment in index.ts declares it. */
export interface DebugTraceConfig {
  readonly trace_bake_enabled: boolean;
}

import { CoreTokens } from '@evmnode/core';

/** The services debug-trace's setup receives. */
export const deps = {
  replayer: CoreTokens.Replayer,
  chain: CoreTokens.ChainReader,
  config: CoreTokens.Config,
};

export type Deps = typeof deps;

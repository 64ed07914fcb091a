import { CoreTokens } from '@evmnode/core';

/** The services ext-legacy's setup receives. */
export const deps = {
  views: CoreTokens.ChainViews,
  chain: CoreTokens.ChainReader,
  native: CoreTokens.NativeLayer,
  logs: CoreTokens.LogQuery,
};

export type Deps = typeof deps;

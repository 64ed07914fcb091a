import { CoreTokens } from '@evmnode/core';

/** The services ext-legacy's setup receives. */
export const deps = {
  views: CoreTokens.ChainViews,
  chain: CoreTokens.ChainReader,
  pool: CoreTokens.TxPoolReader,
  native: CoreTokens.NativeLayer,
  keys: CoreTokens.KeyRing,
  logQuery: CoreTokens.LogQuery,
  config: CoreTokens.Config,
};

export type Deps = typeof deps;

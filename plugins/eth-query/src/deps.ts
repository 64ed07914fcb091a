import { CoreTokens } from '@evmnode/core';

/** The services eth-query's setup receives. */
export const deps = {
  info: CoreTokens.ChainInfo,
  chain: CoreTokens.ChainReader,
  pool: CoreTokens.TxPoolReader,
  views: CoreTokens.ChainViews,
  simulator: CoreTokens.Simulator,
  config: CoreTokens.Config,
};

export type Deps = typeof deps;

import { CoreTokens } from '@evmnode/core';

/** The services the filters plugin's setup receives. */
export const deps = {
  chain: CoreTokens.ChainReader,
  logQuery: CoreTokens.LogQuery,
  config: CoreTokens.Config,
};

export type Deps = typeof deps;

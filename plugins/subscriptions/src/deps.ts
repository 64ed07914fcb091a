import { CoreTokens } from '@evmnode/core';

/** The services the subscriptions plugin's setup receives. */
export const deps = {
  chain: CoreTokens.ChainReader,
  config: CoreTokens.Config,
};

export type Deps = typeof deps;

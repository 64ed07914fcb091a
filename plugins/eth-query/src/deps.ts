import { CoreTokens } from '@evmnode/core';

/** The services eth-query's setup receives. */
export const deps = { info: CoreTokens.ChainInfo, chain: CoreTokens.Chain, config: CoreTokens.Config };

export type Deps = typeof deps;

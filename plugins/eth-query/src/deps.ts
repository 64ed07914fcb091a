import { CoreTokens } from '@evmnode/core';

/** The services eth-query's setup receives. */
export const deps = { chain: CoreTokens.ChainInfo };

export type Deps = typeof deps;

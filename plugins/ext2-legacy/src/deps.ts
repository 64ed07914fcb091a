import { CoreTokens } from '@evmnode/core';

/** The services ext2-legacy's setup receives. */
export const deps = { views: CoreTokens.ChainViews };

export type Deps = typeof deps;

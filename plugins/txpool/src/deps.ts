import { CoreTokens } from '@evmnode/core';

/** The services the txpool plugin's setup receives. */
export const deps = {
  pool: CoreTokens.TxPoolReader,
  views: CoreTokens.ChainViews,
  config: CoreTokens.Config,
  heldAnswers: CoreTokens.HeldAnswers,
};

export type Deps = typeof deps;

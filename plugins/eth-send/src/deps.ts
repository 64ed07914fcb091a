import { CoreTokens } from '@evmnode/core';

/** The services eth-send's setup receives. */
export const deps = {
  chain: CoreTokens.ChainReader,
  submitter: CoreTokens.TxSubmitter,
  pool: CoreTokens.TxPoolReader,
  config: CoreTokens.Config,
  keys: CoreTokens.KeyRing,
  simulator: CoreTokens.Simulator,
};

export type Deps = typeof deps;

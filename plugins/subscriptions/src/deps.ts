import { CoreTokens } from '@evmnode/core';

/** The services the subscriptions plugin's setup receives. */
export const deps = {
  chain: CoreTokens.ChainReader,
  config: CoreTokens.Config,
};

export type Deps = typeof deps;

/** The validated `[plugins.subscriptions]` section, as the config fragment in index.ts declares it. */
export interface SubscriptionsConfig {
  readonly max_unpushed_logs: number;
}

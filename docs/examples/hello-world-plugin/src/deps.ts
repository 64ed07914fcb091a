import { CoreTokens } from '@evmnode/core';

/** The core services this plugin's setup receives, by name. */
export const deps = { chain: CoreTokens.ChainInfo };

export type Deps = typeof deps;

/** The validated `[plugins.hello-world]` section, as the config fragment in index.ts declares it. */
export interface HelloWorldConfig {
  readonly greeting: string;
}

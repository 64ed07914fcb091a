import { CoreTokens } from '@evmnode/core';

/** The services hosted-keys' setup receives. */
export const deps = { keys: CoreTokens.KeyRing, info: CoreTokens.ChainInfo, config: CoreTokens.Config };

export type Deps = typeof deps;

/** `[plugins.hosted-keys]`. */
export interface HostedKeysConfig {
  readonly passphrase_file: string;
  readonly passphrase_env: string;
  readonly dev_accounts: boolean;
}

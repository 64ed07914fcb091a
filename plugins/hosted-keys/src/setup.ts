import { DEV_ACCOUNT_COUNT, devAccounts, StartupError, type PluginSetup } from '@evmnode/core';
import type { Deps, HostedKeysConfig } from './deps.js';
import { decryptKeystore, keyringFolder, keystoreFiles } from './keystores.js';
import { readPassphrase } from './passphrase.js';

const setup: PluginSetup<Deps, HostedKeysConfig> = async ({ config, deps, home, env, logger }) => {
  // Dev accounts first, so that eth_accounts lists them in anvil's and Hardhat's order.
  const devKeys = config.dev_accounts && deps.info.network === 'local' ? devAccounts(DEV_ACCOUNT_COUNT) : [];
  for (const { privateKey } of devKeys) deps.keys.add(Buffer.from(privateKey.slice(2), 'hex'));

  const folder = keyringFolder(home);
  const files = await keystoreFiles(folder);
  const keystoreAddresses: string[] = [];
  if (files.length > 0) {
    const passphrase = await readPassphrase(config, env);
    if (passphrase === undefined) {
      const byEnv =
        config.passphrase_env === ''
          ? 'name the environment variable holding it in passphrase_env'
          : `set the environment variable ${config.passphrase_env}`;
      throw new StartupError(
        `${folder} holds keystores but no passphrase was given: name a file holding it in ` +
          `[plugins.hosted-keys] passphrase_file, or ${byEnv}.`,
      );
    }
    for (const file of files) keystoreAddresses.push(deps.keys.add(await decryptKeystore(file, passphrase)));
  }

  logger.info({ devAccounts: devKeys.length, keystores: keystoreAddresses }, 'hosted keys loaded');
  if (keystoreAddresses.length > 0 && deps.config.evm.cors_origins.includes('*')) {
    logger.warn(
      'any web page can ask this node to sign with its keystores while [evm] cors_origins allows every origin ("*"): ' +
        'list only the origins you trust',
    );
  }
};

export default setup;

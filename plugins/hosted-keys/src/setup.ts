import { DEV_ACCOUNT_COUNT, devAccounts, StartupError, type PluginSetup } from '@evmnode/core';
import type { Deps, HostedKeysConfig } from './deps.js';
import { checkListenAddress, openOriginKeys } from './exposure.js';
import { decryptKeystore, keyringFolder, keystoreFiles } from './keystores.js';
import { readPassphrase } from './passphrase.js';
import { signingOriginsHook } from './signing-origins.js';

const setup: PluginSetup<Deps, HostedKeysConfig> = async ({ config, deps, home, env, logger, rpc }) => {
  const { evm } = deps.config;
  // Dev accounts first, so that eth_accounts lists them in anvil's and Hardhat's order.
  const devKeys = config.dev_accounts && deps.info.network === 'local' ? devAccounts(DEV_ACCOUNT_COUNT) : [];
  const folder = keyringFolder(home);
  const files = await keystoreFiles(folder);
  if (devKeys.length > 0 || files.length > 0) {
    // Before decrypting: scrypt takes a while, and the node would not start anyway.
    checkListenAddress(evm);
    rpc.addHook(signingOriginsHook(evm.signing_origins));
  }

  for (const { privateKey } of devKeys) deps.keys.add(Buffer.from(privateKey.slice(2), 'hex'));
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
  // Dev accounts' keys are public: only keystores are worth the warning.
  const open = openOriginKeys(evm);
  if (keystoreAddresses.length > 0 && open.length > 0) {
    const keys = open.length === 1 ? open[0]! : `${open.slice(0, -1).join(', ')} and ${open.at(-1)!}`;
    logger.warn(
      `any web page a browser opens can call this node, which holds keystores, while [evm] ${keys} ` +
        `${open.length === 1 ? 'allows' : 'allow'} every origin ("*"): list only the origins you trust`,
    );
  }
};

export default setup;

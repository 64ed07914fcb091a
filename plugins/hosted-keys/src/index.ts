import { definePlugin } from '@evmnode/core';
import { deps, type Deps, type HostedKeysConfig } from './deps.js';

/**
 * The keys `eth_sendTransaction`, `eth_signTransaction`, `eth_sign` and `eth_accounts` use: the
 * Web3 Secret Storage keystores in `<home>/keyring/` and, on the local network, the dev accounts.
 */
export default definePlugin<Deps, HostedKeysConfig>({
  id: 'hosted-keys',
  coreApi: '^2.0.0',
  tags: ['hosted-key'],
  config: {
    passphrase_file: {
      doc: 'File whose first line is the passphrase of the keystores in <home>/keyring (relative to the working directory).',
      format: String,
      default: '',
    },
    passphrase_env: {
      doc: 'Environment variable holding that passphrase, read when passphrase_file is empty.',
      format: String,
      default: 'KEYRING_PASSPHRASE',
    },
    dev_accounts: {
      doc: "On network local, also hold the ten funded dev accounts of the test mnemonic (m/44'/60'/0'/0/0-9).",
      format: Boolean,
      default: true,
    },
  },
  deps,
  setup: () => import('./setup.js'),
});

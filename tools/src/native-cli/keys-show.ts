import { addressesOfKey } from './key-addresses.js';
import type { NativeCommand } from './native-command.js';
import { readSigningKey } from './signing-key.js';

/** `evmnode keys show KEY`: the EVM and the native address of a key. */
export const keysShow: NativeCommand = {
  command: 'keys show',
  synopsis: 'evmnode keys show KEY',
  flags: ['passphrase-file'],
  positionals: ['KEY'],
  async run(line) {
    const key = await readSigningKey(line.positionals.get('KEY')!, line.flag('passphrase-file'), process.env);
    const { evm, native } = addressesOfKey(key);
    process.stdout.write(`evm: ${evm}\nnative: ${native}\n`);
  },
};

import { UsageError } from '../cli/usage-error.js';
import { parseCommandLine } from './command-line.js';
import { keysShow } from './keys-show.js';
import { nativeAssociate } from './native-associate.js';
import type { NativeCommand } from './native-command.js';
import { nativeRegisterPointer, REGISTER_POINTER_GAS } from './native-register-pointer.js';
import { nativeSend } from './native-send.js';
import { DEFAULT_GAS, DEFAULT_NODE } from './native-tx.js';
import { PASSPHRASE_ENV } from './signing-key.js';

const COMMANDS: readonly NativeCommand[] = [keysShow, nativeSend, nativeAssociate, nativeRegisterPointer];

/** The native commands' part of the `evmnode` usage text: one synopsis a line, then notes on their arguments. */
export const NATIVE_USAGE = {
  synopses: COMMANDS.map((command) => command.synopsis),
  notes: [
    `KEY is a 0x hex private key, or the path of a Web3 Secret Storage keystore whose passphrase is the first line of`,
    `--passphrase-file FILE or else the environment variable ${PASSPHRASE_ENV}.`,
    'ADDRESS is bech32 (sei1...), or 0x hex for the native address of the same 20 bytes, which credits that EVM address.',
    `Native transactions go to the node's native gateway at --node (default ${DEFAULT_NODE}) with --gas (default`,
    `${DEFAULT_GAS}, ${REGISTER_POINTER_GAS} for register-pointer) and --fees (default ceil(gas x 1 gwei / 10^12) usei, the local`,
    'minimum gas price: give more on a network whose [mempool] min_gas_price is higher).',
  ],
} as const;

/**
 * Runs `evmnode keys ...` or `evmnode native ...`: `argv` is the command line after node and the
 * script. A line that names no such command is a {@link UsageError} without a message.
 */
export async function runNativeCli(argv: readonly string[]): Promise<void> {
  const words = argv.slice(0, 2).join(' ');
  const command = COMMANDS.find((candidate) => candidate.command === words);
  if (command === undefined) throw new UsageError();
  await command.run(parseCommandLine(command, argv.slice(2)));
}

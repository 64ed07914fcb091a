import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import { MsgRegisterPointer, pointerAddressOf } from '@evmnode/core';
import type { NativeCommand } from './native-command.js';
import { signAndSend, TX_FLAGS } from './native-tx.js';

/** Registration alone costs 200,000 gas on evmnode; the rest pays for the transaction's bytes and signature. */
export const REGISTER_POINTER_GAS = 300_000n;

/** `evmnode native register-pointer`: creates a denomination's ERC20 pointer and prints its address. */
export const nativeRegisterPointer: NativeCommand = {
  command: 'native register-pointer',
  synopsis: 'evmnode native register-pointer --key KEY --denom DENOM [--node URL] [--gas N] [--fees <n>usei]',
  flags: [...TX_FLAGS, 'denom'],
  positionals: [],
  async run(line) {
    const denom = line.requiredFlag('denom');
    await signAndSend(
      line,
      (sender) => [{ typeUrl: MsgRegisterPointer.typeUrl, value: MsgRegisterPointer.fromPartial({ sender, denom }) }],
      REGISTER_POINTER_GAS,
    );
    process.stdout.write(`pointer: ${toChecksumAddress(bytesToHex(pointerAddressOf(denom)))}\n`);
  },
};

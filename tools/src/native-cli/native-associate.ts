import { MsgAssociate } from '@evmnode/core';
import type { NativeCommand } from './native-command.js';
import { signAndSend, TX_FLAGS } from './native-tx.js';

/** `evmnode native associate`: links the key's EVM and native addresses (decisions.md D5). */
export const nativeAssociate: NativeCommand = {
  command: 'native associate',
  synopsis: 'evmnode native associate --key KEY [--message TEXT] [--node URL] [--gas N] [--fees <n>usei]',
  flags: [...TX_FLAGS, 'message'],
  positionals: [],
  async run(line) {
    const customMessage = line.flag('message') ?? '';
    await signAndSend(line, (sender) => [
      { typeUrl: MsgAssociate.typeUrl, value: MsgAssociate.fromPartial({ sender, customMessage }) },
    ]);
  },
};

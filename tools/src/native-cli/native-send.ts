import type { MsgSendEncodeObject } from '@cosmjs/stargate';
import { coinFlag } from './coin-flag.js';
import type { NativeCommand } from './native-command.js';
import { signAndSend, TX_FLAGS } from './native-tx.js';
import { recipientAddress } from './recipient-address.js';

/** `evmnode native send`: a bank MsgSend of one coin. */
export const nativeSend: NativeCommand = {
  command: 'native send',
  synopsis: 'evmnode native send --key KEY --to ADDRESS --amount <n><denom> [--node URL] [--gas N] [--fees <n>usei]',
  flags: [...TX_FLAGS, 'to', 'amount'],
  positionals: [],
  async run(line) {
    const toAddress = recipientAddress(line.requiredFlag('to'));
    const amount = coinFlag('amount', line.requiredFlag('amount'));
    await signAndSend(line, (fromAddress): MsgSendEncodeObject[] => [
      { typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: { fromAddress, toAddress, amount: [amount] } },
    ]);
  },
};

import { hexToBytes, isValidAddress } from '@ethereumjs/util';
import { castNativeAddress, decodeNativeAddress } from '@evmnode/core';
import { UsageError } from '../cli/usage-error.js';

/**
 * The bech32 address a `--to` names: bech32 as given, or for 0x hex its cast native address (the
 * same 20 bytes), which the node credits to that EVM address unless another key claimed it.
 */
export function recipientAddress(text: string): string {
  if (text.startsWith('0x')) {
    if (!isValidAddress(text)) throw new UsageError(`--to ${text} is not a 0x address of 20 bytes`);
    return castNativeAddress(hexToBytes(text));
  }
  try {
    decodeNativeAddress(text);
  } catch (error) {
    throw new UsageError(`--to ${text} is not a native address: ${(error as Error).message}`);
  }
  return text;
}

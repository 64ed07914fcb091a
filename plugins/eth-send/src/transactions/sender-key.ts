import { InvalidInputError, type KeyRing } from '@evmnode/core';

/** The key `eth_sendTransaction` and `eth_signTransaction` sign with, or the reference node's refusal. */
export function senderKeyOf(keys: KeyRing, from: `0x${string}` | undefined): Uint8Array {
  const key = from === undefined ? undefined : keys.privateKeyOf(from);
  if (key === undefined) throw new InvalidInputError('from address does not have hosted key');
  return key;
}

import { address, codec, CodecError, decodeNativeAddress, jsonKind } from '@evmnode/core';

/** An account named either way: a hex EVM address or a bech32 native one. */
export type AccountAddress = { readonly evm: `0x${string}` } | { readonly native: string };

/** A parameter that is an EVM address (hex) or a native address (bech32), as the Sei `ext_` methods take. */
export const accountAddress = codec<AccountAddress>('string', (value) => {
  if (typeof value !== 'string') throw new CodecError(jsonKind(value), 'string');
  if (value.startsWith('0x') || value.startsWith('0X')) return { evm: address.decode(value) };
  try {
    decodeNativeAddress(value);
  } catch (error) {
    // Only NativeAddressError, whose words follow the Cosmos SDK's.
    throw new CodecError((error as Error).message);
  }
  return { native: value };
});

import { toChecksumAddress } from '@ethereumjs/util';
import { address, defineMethod, InvalidInputError, string, type ChainReader } from '@evmnode/core';

/** `ext_getNativeAddress` and its alias `ext_getCosmosAddress` (decisions.md D1): answered by one definition. */
const NATIVE_ADDRESS_NAMES = ['ext_getNativeAddress', 'ext_getCosmosAddress'] as const;

/** The association lookups at the head, both directions (interface.md §4.11, decisions.md D3 wording). */
export function addressMethods(chain: ChainReader) {
  return [
    ...NATIVE_ADDRESS_NAMES.map((name) =>
      defineMethod({
        name,
        params: [address],
        handler: async ([evmAddress]) => {
          const native = await chain.nativeAddressOf(evmAddress, chain.head().height);
          if (native === undefined) {
            throw new InvalidInputError(`failed to find native address for ${toChecksumAddress(evmAddress)}`);
          }
          return native;
        },
      }),
    ),
    defineMethod({
      name: 'ext_getEVMAddress',
      params: [string],
      handler: async ([nativeAddress]) => {
        // evmAddressOf answers a malformed address with the Cosmos SDK's bech32 error (-32000).
        const evm = await chain.evmAddressOf(nativeAddress, chain.head().height);
        if (evm === undefined) throw new InvalidInputError(`failed to find EVM address for ${nativeAddress}`);
        return evm;
      },
    }),
  ];
}

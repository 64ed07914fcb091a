import { bytesToHex, privateToPublic, toChecksumAddress } from '@ethereumjs/util';
import { encodeNativeAddress, evmAddressOfKey, nativeAddressOfKey } from '@evmnode/core';

/** The two addresses of one secp256k1 key (decisions.md D5). */
export interface KeyAddresses {
  /** Checksummed 0x hex. */
  readonly evm: string;
  /** Bech32. */
  readonly native: string;
}

/** The EVM and native addresses of a private key. */
export function addressesOfKey(privateKey: Uint8Array): KeyAddresses {
  const publicKey = privateToPublic(privateKey);
  return {
    evm: toChecksumAddress(bytesToHex(evmAddressOfKey(publicKey))),
    native: encodeNativeAddress(nativeAddressOfKey(publicKey)),
  };
}

import { createCustomCommon, Hardfork, Mainnet, type Common } from '@ethereumjs/common';
import { nativeCrypto } from '../native-crypto.js';

/** The EVM rules of the chain: Prague, with the chain's ID and native signature recovery. */
export function evmCommon(chainId: bigint): Common {
  return createCustomCommon({ chainId: Number(chainId), name: 'evmnode' }, Mainnet, {
    hardfork: Hardfork.Prague,
    customCrypto: nativeCrypto,
  });
}

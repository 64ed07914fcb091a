import { createCustomCommon, Hardfork, Mainnet, type Common } from '@ethereumjs/common';

/** The EVM rules of the chain: Prague, with the chain's ID. */
export function evmCommon(chainId: bigint): Common {
  return createCustomCommon({ chainId: Number(chainId), name: 'evmnode' }, Mainnet, { hardfork: Hardfork.Prague });
}

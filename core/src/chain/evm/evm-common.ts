import { paramsBlock, type BlockOptions } from '@ethereumjs/block';
import { createCustomCommon, Hardfork, Mainnet, type Common } from '@ethereumjs/common';
import { kzg } from './kzg.js';
import { nativeCrypto } from '../native-crypto.js';

/**
 * The EVM rules of the chain: Prague, with the chain's ID, native signature recovery and the KZG
 * the point-evaluation precompile verifies with.
 */
export function evmCommon(chainId: bigint): Common {
  return createCustomCommon({ chainId: Number(chainId), name: 'evmnode' }, Mainnet, {
    hardfork: Hardfork.Prague,
    customCrypto: { ...nativeCrypto, kzg },
  });
}

/**
 * Block options that build fast: a block header merges the block parameters into its own copy of
 * Common and rebuilds that copy's parameter cache. Merged once here, with the merge turned off on
 * this instance (copies inherit it), building a block no longer rebuilds anything.
 */
export function fastBlockOptions(chainCommon: Common): BlockOptions {
  const common = chainCommon.copy();
  common.updateParams(paramsBlock);
  common.updateParams = () => undefined;
  return { common, skipConsensusFormatValidation: true };
}

import { paramsBlock, type BlockOptions } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
// Loaded before ethereumjs builds anything: every state and VM of the chain takes its Common from here.
import './ethereumjs-loggers.js';
import './bloom-entries.js';
import { kzg } from './kzg.js';
import { nativeCrypto } from '../native-crypto.js';

/**
 * ethereumjs' Common with its active EIPs in a set. The interpreter asks whether an EIP is active
 * several times at every step, and Common answers by searching its list of about forty.
 */
class EvmCommon extends Common {
  /** A plain property, so that `copy()` carries it; rebuilt whenever Common rebuilds its list. */
  declare protected activeEips: ReadonlySet<number>;

  protected override _buildActivatedEIPsCache(): void {
    super._buildActivatedEIPsCache();
    this.activeEips = new Set(this._activatedEIPsCache);
  }

  override isActivatedEIP(eip: number): boolean {
    return this.activeEips.has(eip);
  }
}

/**
 * The EVM rules of the chain: Prague, with the chain's ID, native signature recovery and the KZG
 * the point-evaluation precompile verifies with.
 */
export function evmCommon(chainId: bigint): Common {
  return new EvmCommon({
    chain: { ...Mainnet, chainId: Number(chainId), name: 'evmnode' },
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

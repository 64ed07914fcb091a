import { ChainParams } from './chain-params.js';
import type { BlockRecord } from './records.js';

/**
 * The base fee of the block after one that used `gasUsed` of `gasLimit` at `baseFee`: it moves
 * linearly with how far usage is from the target, by at most +1.89% (full block) and -0.39%
 * (empty block), within [1 gwei, 1000 gwei].
 */
export function nextBaseFee(baseFee: bigint, gasUsed: bigint, gasLimit: bigint): bigint {
  const {
    targetGasPerBlock: target,
    maxIncreaseBasisPoints,
    maxDecreaseBasisPoints,
    minBaseFee,
    maxBaseFee,
  } = ChainParams;
  let next = baseFee;
  if (gasUsed > target) {
    next = baseFee + (baseFee * maxIncreaseBasisPoints * (gasUsed - target)) / (10_000n * (gasLimit - target));
  } else if (gasUsed < target) {
    next = baseFee - (baseFee * maxDecreaseBasisPoints * (target - gasUsed)) / (10_000n * target);
  }
  return next < minBaseFee ? minBaseFee : next > maxBaseFee ? maxBaseFee : next;
}

/** The base fee of the block after `parent`; genesis's own is its child's. */
export function baseFeeAfter(parent: Pick<BlockRecord, 'height' | 'baseFeePerGas' | 'gasUsed' | 'gasLimit'>): bigint {
  const baseFee = BigInt(parent.baseFeePerGas);
  return parent.height === 0 ? baseFee : nextBaseFee(baseFee, BigInt(parent.gasUsed), BigInt(parent.gasLimit));
}

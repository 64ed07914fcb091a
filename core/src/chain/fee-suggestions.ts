import type { ChainReader } from '../api/chain-reader.js';
import type { BlockRecord } from './records.js';

const ONE_GWEI = 1_000_000_000n;

/**
 * The tip at each percentile of a block's gas, as geth's fee history computes rewards: the
 * block's transactions sorted by tip, each weighted by the gas it used. A block without
 * transactions rewards 0.
 */
export function rewardPercentiles(block: BlockRecord, percentiles: readonly number[]): bigint[] {
  const tips = block.tips.map(([gasUsed, tip]) => ({ gasUsed: Number(BigInt(gasUsed)), tip: BigInt(tip) }));
  if (tips.length === 0) return percentiles.map(() => 0n);
  const blockGasUsed = Number(BigInt(block.gasUsed));
  let index = 0;
  let sumGasUsed = tips[0]!.gasUsed;
  return percentiles.map((percentile) => {
    const threshold = Math.floor((blockGasUsed * percentile) / 100);
    while (sumGasUsed < threshold && index < tips.length - 1) {
      index++;
      sumGasUsed += tips[index]!.gasUsed;
    }
    return tips[index]!.tip;
  });
}

/** A block used more than 80% of its gas limit (decisions.md D4). */
export function isCongested(block: BlockRecord): boolean {
  return BigInt(block.gasUsed) * 100n > BigInt(block.gasLimit) * 80n;
}

/** `eth_maxPriorityFeePerGas`: 1 gwei, or the latest block's median tip when it was congested. */
export function suggestedTip(chain: Pick<ChainReader, 'head'>): bigint {
  const head = chain.head();
  return isCongested(head) ? rewardPercentiles(head, [50])[0]! : ONE_GWEI;
}

/** `eth_gasPrice`: the next base fee x 110/100, or the latest block's median tip plus it when congested. */
export function suggestedGasPrice(chain: Pick<ChainReader, 'head' | 'nextBaseFee'>): bigint {
  const head = chain.head();
  const baseFee = chain.nextBaseFee();
  return isCongested(head) ? rewardPercentiles(head, [50])[0]! + baseFee : (baseFee * 110n) / 100n;
}

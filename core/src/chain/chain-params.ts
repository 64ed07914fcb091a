/** Fixed parameters of the chain (decisions.md D4). */
export const ChainParams = {
  blockGasLimit: 12_500_000n,
  /** The fee collector: COINBASE, `eth_coinbase`, and the receiver of every fee (the base fee is not burned). */
  feeCollector: '0x27f7b8b8b5a4e71e8e9aa671f4e4031e3773303f',
  initialBaseFee: 1_000_000_000n,
  minBaseFee: 1_000_000_000n,
  maxBaseFee: 1_000_000_000_000n,
  targetGasPerBlock: 250_000n,
  /** Largest change per block, in basis points: up at a full block, down at an empty one. */
  maxIncreaseBasisPoints: 189n,
  maxDecreaseBasisPoints: 39n,
  /** Largest raw transaction the pool accepts (geth's txMaxSize). */
  maxTxBytes: 128 * 1024,
  /** The native base denomination: 1 usei = 10^12 wei. */
  baseDenom: 'usei',
  /** The human-readable part of native (bech32) addresses. */
  bech32Prefix: 'sei',
} as const;

import type { NetworkName } from '../config/profiles.js';

/** The chain's identity as clients see it. */
export interface ChainInfo {
  readonly network: NetworkName;
  readonly chainId: bigint;
}

import type { CustomPrecompile } from '@ethereumjs/evm';
import type { ChainStore } from '../chain-store.js';

/** What a chain precompile may use beside the EVM it runs in. */
export interface PrecompileContext {
  readonly store: ChainStore;
}

/** The chain's own precompiles (decisions.md D5), at their fixed addresses, for every VM the node runs. */
export function chainPrecompiles(_context: PrecompileContext): CustomPrecompile[] {
  return [];
}

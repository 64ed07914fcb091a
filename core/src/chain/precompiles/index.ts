import type { CustomPrecompile } from '@ethereumjs/evm';
import { addrPrecompile } from './addr.js';
import { bankPrecompile } from './bank.js';
import type { CurrentMessage } from './current-message.js';
import type { ChainStore } from '../chain-store.js';
import type { Denoms } from '../native/bank.js';
import type { NativeEffects } from '../native/native-effects.js';

/** What a chain precompile may use beside the EVM it runs in. */
export interface PrecompileContext {
  readonly store: ChainStore;
  /** The message that reached the precompile (its caller, static flag and value). */
  readonly currentMessage: CurrentMessage;
  /** The chain's denominations, for the bank. */
  readonly denoms: Denoms;
  /** Where precompiles report native transfers and refusals. */
  readonly nativeEffects: NativeEffects;
}

/** The chain's own precompiles (decisions.md D5), at their fixed addresses, for every VM the node runs. */
export function chainPrecompiles(context: PrecompileContext): CustomPrecompile[] {
  return [addrPrecompile(context), bankPrecompile(context)];
}

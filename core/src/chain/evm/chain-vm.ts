import type { Common } from '@ethereumjs/common';
import type { EVMOpts } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { createVM, type VM } from '@ethereumjs/vm';
import { blockHashes } from './block-hashes.js';
import { installCodeAnalysisCache } from './code-analysis-cache.js';
import { offloadedPrecompiles } from './offloaded-precompiles.js';
import type { ComputeDeadline, PrecompileThreads } from './precompile-threads.js';
import type { TracedOpcodes } from './traced-opcodes.js';
import type { ChainStore } from '../chain-store.js';
import { CurrentMessage } from '../precompiles/current-message.js';
import type { Denoms } from '../native/bank.js';
import type { NativeEffects } from '../native/native-effects.js';
import { chainPrecompiles } from '../precompiles/index.js';

/** Opcodes added or replaced in one VM (EVMOpts' `customOpcodes`, which the package does not export by name). */
export type CustomOpcodes = NonNullable<EVMOpts['customOpcodes']>;

export interface ChainVmOptions {
  readonly common: Common;
  readonly store: ChainStore;
  readonly stateManager: MerkleStateManager;
  readonly denoms: Denoms;
  /** Where this VM's precompiles report native effects; read by whoever runs it. */
  readonly nativeEffects: NativeEffects;
  /** Where the expensive precompiles compute: `precompileThreads.chain` or `.requests`. */
  readonly precompileThreads: PrecompileThreads;
  /** When a client's precompile computation is abandoned; none for blocks. */
  readonly deadline?: ComputeDeadline;
  /** What tracers are told beyond the EVM's events; for VMs that trace (replays, simulated calls). */
  readonly tracedOpcodes?: TracedOpcodes;
}

/**
 * A VM with the chain's rules: its Common, BLOCKHASH from our block store and the chain's
 * precompiles. The block producer and the simulator both run on one, so that a call and the
 * transaction it predicts execute alike.
 */
export async function createChainVM(options: ChainVmOptions): Promise<VM> {
  await installCodeAnalysisCache();
  const currentMessage = new CurrentMessage();
  const customOpcodes = options.tracedOpcodes?.customOpcodes(options.common) ?? [];
  const vm = await createVM({
    // A copy (it shares the rules; copying is shallow): ethereumjs' EVM subscribes to its Common's
    // events and never unsubscribes, so a Common shared by every VM would keep each VM ever built
    // (a replay builds one) alive with its state and caches.
    common: options.common.copy(),
    stateManager: options.stateManager,
    blockchain: blockHashes(options.store),
    evmOpts: {
      customPrecompiles: [
        ...offloadedPrecompiles(options.common, options.precompileThreads, options.deadline),
        ...chainPrecompiles({
          store: options.store,
          currentMessage,
          denoms: options.denoms,
          nativeEffects: options.nativeEffects,
        }),
      ],
      ...(customOpcodes.length === 0 ? {} : { customOpcodes }),
    },
  });
  currentMessage.follow(vm.evm);
  return vm;
}

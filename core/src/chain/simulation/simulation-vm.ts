import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { equalsBytes, hexToBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { Chain } from '../chain.js';
import { createChainVM } from '../evm/chain-vm.js';
import { stateManagerAt, type StateCacheSizes } from '../state/world-state.js';

const JUMPDEST = 0x5b;

/** Thrown from inside the EVM when a simulated call passes its deadline. */
export class SimulationTimeout extends Error {}

/** Small caches: simulation VMs are several, and each is re-rooted whenever the head moves. */
const SIMULATION_CACHES: StateCacheSizes = { trieNodes: 2_000, entries: 2_000 };

/**
 * A VM of its own for one simulated call at a time, on a state manager that is moved to the
 * root the call reads and reverted after it, so that repeated calls at the head find their
 * accounts, code and slots cached.
 */
export class SimulationVm {
  /** `performance.now()` after which the running call is aborted. */
  deadline = Number.POSITIVE_INFINITY;
  #root: Uint8Array | undefined;

  private constructor(
    readonly vm: VM,
    readonly state: MerkleStateManager,
  ) {}

  static async create(chain: Chain): Promise<SimulationVm> {
    const state = stateManagerAt(chain.nodes, chain.common, undefined, SIMULATION_CACHES);
    // Every loop passes a JUMPDEST: checking the clock there bounds a runaway call's time
    // without a per-step hook (which would slow every call down).
    const holder: { simulation?: SimulationVm } = {};
    const vm = await createChainVM({
      common: chain.common,
      store: chain.store,
      stateManager: state,
      customOpcodes: [
        {
          opcode: JUMPDEST,
          opcodeName: 'JUMPDEST',
          baseFee: 1,
          logicFunction: () => {
            if (performance.now() > (holder.simulation?.deadline ?? Number.POSITIVE_INFINITY)) {
              throw new SimulationTimeout();
            }
          },
        },
      ],
    });
    holder.simulation = new SimulationVm(vm, state);
    return holder.simulation;
  }

  /** Moves the state to `root`, keeping the caches when it is already there. */
  async moveTo(root: `0x${string}`): Promise<void> {
    const bytes = hexToBytes(root);
    if (this.#root !== undefined && equalsBytes(this.#root, bytes)) return;
    await this.state.setStateRoot(bytes);
    this.#root = bytes;
  }
}

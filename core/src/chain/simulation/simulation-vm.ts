import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { equalsBytes, hexToBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { Chain } from '../chain.js';
import { createChainVM } from '../evm/chain-vm.js';
import { precompileThreads, type ComputeDeadline } from '../evm/precompile-threads.js';
import { TracedOpcodes } from '../evm/traced-opcodes.js';
import { NativeEffects } from '../native/native-effects.js';
import { stateManagerAt, type StateCacheSizes } from '../state/world-state.js';

/** How long a simulated call computes before it lets other work run. */
const TURN_MS = 10;

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
  #deadline = Number.POSITIVE_INFINITY;
  #signal: AbortSignal | undefined;
  #nextTurn = 0;
  #root: Uint8Array | undefined;

  private constructor(
    readonly vm: VM,
    readonly state: MerkleStateManager,
    /** What the native side did in the running call; read to report a native refusal. */
    readonly nativeEffects: NativeEffects,
    /** What a traced call's tracer is told beyond the EVM's events. */
    readonly tracedOpcodes: TracedOpcodes,
  ) {}

  static async create(chain: Chain): Promise<SimulationVm> {
    const state = stateManagerAt(chain.nodes, chain.common, undefined, SIMULATION_CACHES);
    const holder: { simulation?: SimulationVm } = {};
    const nativeEffects = new NativeEffects();
    const tracedOpcodes = new TracedOpcodes();
    // Expensive precompiles compute on the clients' worker threads; past the deadline, or once
    // the caller gave up, their worker is stopped.
    const deadline: ComputeDeadline = {
      at: () => holder.simulation?.deadline ?? Number.POSITIVE_INFINITY,
      exceeded: () => new SimulationTimeout(),
      signal: () => holder.simulation?.signal,
    };
    const vm = await createChainVM({
      common: chain.common,
      store: chain.store,
      stateManager: state,
      denoms: chain.denoms,
      nativeEffects,
      precompileThreads: precompileThreads.requests,
      deadline,
      tracedOpcodes,
    });
    // The interpreter asks every 1,024 steps or 16,384 gas of a frame: checking the clock there
    // bounds a runaway call's time without a per-step hook (which would slow every call down). It
    // is also where a long call gives the event loop a turn: the EVM never waits on I/O of its
    // own while it computes, so without it one call would hold up block production, every other
    // request and the concurrency limit (which could never see two calls at once).
    vm.evm.turns = { pause: () => holder.simulation?.checkClock() };
    // Code can also run for long by calling itself again and again, each frame short: each call
    // frame checks the clock as well.
    vm.evm.events?.on('beforeMessage', (_message, resolve) => {
      const turn = holder.simulation?.checkClock();
      if (turn === undefined) resolve?.();
      else void turn.then(() => resolve?.());
    });
    holder.simulation = new SimulationVm(vm, state, nativeEffects, tracedOpcodes);
    return holder.simulation;
  }

  /** `performance.now()` after which the running call is aborted. */
  get deadline(): number {
    return this.#deadline;
  }

  /** Fires when the running call's caller gave up on it. */
  get signal(): AbortSignal | undefined {
    return this.#signal;
  }

  /** Starts the clock of a call that may run for `timeoutMs`, and that stops when `signal` fires. */
  startClock(timeoutMs: number, signal?: AbortSignal): void {
    const now = performance.now();
    this.#deadline = now + timeoutMs;
    this.#nextTurn = now + TURN_MS;
    this.#signal = signal;
  }

  /**
   * Aborts the running call past its deadline, or with the signal's reason once its caller gave
   * up; every {@link TURN_MS} lets the event loop run first.
   */
  checkClock(): Promise<void> | undefined {
    this.#signal?.throwIfAborted();
    const now = performance.now();
    if (now > this.#deadline) throw new SimulationTimeout();
    if (now < this.#nextTurn) return undefined;
    this.#nextTurn = now + TURN_MS;
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** Moves the state to `root`, keeping the caches when it is already there. */
  async moveTo(root: `0x${string}`): Promise<void> {
    const bytes = hexToBytes(root);
    if (this.#root !== undefined && equalsBytes(this.#root, bytes)) return;
    await this.state.setStateRoot(bytes);
    this.#root = bytes;
  }
}

import type { AccessListEntry, BlockOverrides, CallRequest, StateOverrides } from '../rpc/call-codecs.js';
import type { BlockRef } from '../rpc/block-codecs.js';

/** `eth_createAccessList`'s result. */
export interface AccessListResult {
  readonly accessList: AccessListEntry[];
  readonly gasUsed: bigint;
  /** The VM error of the final run, when it failed. */
  readonly error?: string;
}

/** What a simulated call is run with beyond its arguments. */
export interface SimulationOptions {
  /** Fires when its caller no longer needs it (its client left): the call then stops, with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * Calls simulated on the state after any block the node keeps, as geth's `eth_call`,
 * `eth_estimateGas` and `eth_createAccessList` run them: no signature or nonce checks, the
 * `simulation_gas_limit` cap, the `simulation_evm_timeout`, and nothing kept. Errors are thrown
 * as geth words them (reverts as {@link ExecutionRevertedError}).
 */
export interface Simulator {
  /** `eth_call`: the return data. */
  call(
    request: CallRequest,
    ref: BlockRef,
    overrides?: StateOverrides,
    blockOverrides?: BlockOverrides,
    options?: SimulationOptions,
  ): Promise<Uint8Array>;
  /**
   * `eth_estimateGas`: the least gas, within geth's 1.5%, with which the call succeeds; with
   * `precedingCalls`, after those calls have run on the same state.
   */
  estimateGas(
    request: CallRequest,
    ref: BlockRef,
    overrides?: StateOverrides,
    precedingCalls?: readonly CallRequest[],
    options?: SimulationOptions,
  ): Promise<bigint>;
  /** `eth_createAccessList`: a VM error is part of the result, not an error. */
  createAccessList(request: CallRequest, ref: BlockRef, options?: SimulationOptions): Promise<AccessListResult>;
}

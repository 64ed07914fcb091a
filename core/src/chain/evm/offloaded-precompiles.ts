import type { Common } from '@ethereumjs/common';
import { getActivePrecompiles, type CustomPrecompile, type PrecompileInput } from '@ethereumjs/evm';
import type { ComputeDeadline, PrecompileThreads } from './precompile-threads.js';

/**
 * The standard precompiles whose price allows long computations: modexp, BN254 pairing, BLAKE2 F
 * and the BLS12-381 family. The others cost microseconds per call at any gas, but for KZG point
 * evaluation (0x0a): its fixed 50,000 gas buys a BLS12-381 pairing check that takes 25 to 40 ms
 * in JavaScript, so a block or a call full of them would hold the event loop for seconds.
 */
const EXPENSIVE = ['05', '08', '09', '0a', '0b', '0c', '0d', '0e', '0f', '10', '11'];

/**
 * Below this gas a call computes for a few milliseconds at most (100,000 gas buys about 35 ms of
 * BLAKE2 rounds or two pairings), less than a worker's round trip is worth avoiding.
 */
const INLINE_GAS = 100_000n;

/**
 * Point evaluation's fixed price (EIP-4844): any call that can pay it verifies a proof, and one
 * that cannot is out of gas at once, so it runs inline only then.
 */
const POINT_EVALUATION_GAS = 50_000n;

/**
 * The expensive standard precompiles, replaced by ones that compute on `threads` when the call's
 * gas allows a long computation. Results are those of the same functions, so blocks and
 * simulations execute alike; `deadline` abandons a simulated call's computation.
 */
export function offloadedPrecompiles(
  common: Common,
  threads: PrecompileThreads,
  deadline: ComputeDeadline | undefined,
): CustomPrecompile[] {
  const active = getActivePrecompiles(common);
  const hardfork = common.hardfork();
  const offloaded: CustomPrecompile[] = [];
  for (const suffix of EXPENSIVE) {
    const address = suffix.padStart(40, '0');
    const inline = active.get(address);
    if (inline === undefined) continue;
    const inlineGas = suffix === '0a' ? POINT_EVALUATION_GAS : INLINE_GAS;
    offloaded.push({
      address: `0x${address}`,
      function: (input: PrecompileInput) =>
        input.gasLimit < inlineGas
          ? inline(input)
          : threads.run({ hardfork, address, data: input.data, gasLimit: input.gasLimit }, deadline),
    });
  }
  return offloaded;
}

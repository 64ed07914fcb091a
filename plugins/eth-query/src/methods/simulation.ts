import {
  arrayOf,
  blockOverrides,
  blockRef,
  callRequest,
  defineMethod,
  FailFastLimiter,
  LATEST_BLOCK,
  stateOverrides,
  toQuantity,
  type Simulator,
} from '@evmnode/core';
import { bytesToHex } from '@ethereumjs/util';

const PENDING = { kind: 'tag', tag: 'pending' } as const;

/**
 * §4.7: `eth_call`, the estimates and `eth_createAccessList`, all behind one fail-fast limiter of
 * `max_concurrent_simulation_calls` calls, of which one client may run `max_client_share`. A call
 * whose client leaves stops, and frees its place.
 */
export function simulationMethods(simulator: Simulator, maxConcurrent: number, clientShare: number) {
  const limiter = new FailFastLimiter(maxConcurrent, clientShare);
  return [
    defineMethod({
      name: 'eth_call',
      params: [callRequest, blockRef.optional(LATEST_BLOCK), stateOverrides.optional(), blockOverrides.optional()],
      handler: ([call, block, overrides, blockFields], request) =>
        limiter.run('eth_call', request.clientId, async () =>
          bytesToHex(await simulator.call(call, block, overrides, blockFields, { signal: request.signal })),
        ),
    }),
    defineMethod({
      name: 'eth_estimateGas',
      params: [callRequest, blockRef.optional(LATEST_BLOCK), stateOverrides.optional()],
      handler: ([call, block, overrides], request) =>
        limiter.run('eth_estimateGas', request.clientId, async () =>
          toQuantity(await simulator.estimateGas(call, block, overrides, [], { signal: request.signal })),
        ),
    }),
    defineMethod({
      name: 'eth_estimateGasAfterCalls',
      params: [callRequest, arrayOf(callRequest), blockRef.optional(LATEST_BLOCK), stateOverrides.optional()],
      handler: ([call, calls, block, overrides], request) =>
        limiter.run('eth_estimateGasAfterCalls', request.clientId, async () =>
          toQuantity(await simulator.estimateGas(call, block, overrides, calls, { signal: request.signal })),
        ),
    }),
    defineMethod({
      name: 'eth_createAccessList',
      params: [callRequest, blockRef.optional(PENDING)],
      handler: ([call, block], request) =>
        limiter.run('eth_createAccessList', request.clientId, async () => {
          const { accessList, gasUsed, error } = await simulator.createAccessList(call, block, {
            signal: request.signal,
          });
          return { accessList, ...(error === undefined ? {} : { error }), gasUsed: toQuantity(gasUsed) };
        }),
    }),
  ];
}

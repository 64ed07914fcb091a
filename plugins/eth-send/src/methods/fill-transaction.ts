import { callRequest, defineMethod } from '@evmnode/core';
import { fillTransaction as fill, ZERO_ADDRESS, type FillServices } from '../transactions/fill-transaction.js';
import { transactionResult } from '../transactions/signed-result.js';

/**
 * `eth_fillTransaction`: the unsigned transaction `eth_signTransaction` would sign after geth's
 * defaults, as `{raw, tx}`. It needs no key: viem calls it to prepare transactions it signs itself.
 */
export function fillTransaction(services: FillServices) {
  return defineMethod({
    name: 'eth_fillTransaction',
    params: [callRequest],
    handler: async ([request]) =>
      transactionResult(await fill(request, services, 'geth'), request.from ?? ZERO_ADDRESS),
  });
}

import { callRequest, defineMethod, InvalidInputError, type KeyRing } from '@evmnode/core';
import { fillTransaction, type FillServices } from '../transactions/fill-transaction.js';
import { senderKeyOf } from '../transactions/sender-key.js';
import { transactionResult } from '../transactions/signed-result.js';

/**
 * `eth_signTransaction`: signs a fully specified transaction with the sender's hosted key and
 * returns `{raw, tx}`; nothing is broadcast. As geth, gas, a fee and the nonce are required, and
 * the fee fields choose the type (legacy with `gasPrice`, EIP-1559 otherwise).
 */
export function signTransaction(keys: KeyRing, services: FillServices) {
  return defineMethod({
    name: 'eth_signTransaction',
    params: [callRequest],
    handler: async ([request]) => {
      const key = senderKeyOf(keys, request.from);
      if (request.gas === undefined) throw new InvalidInputError('gas not specified');
      if (
        request.gasPrice === undefined &&
        (request.maxFeePerGas === undefined || request.maxPriorityFeePerGas === undefined)
      ) {
        throw new InvalidInputError('missing gasPrice or maxFeePerGas/maxPriorityFeePerGas');
      }
      if (request.nonce === undefined) throw new InvalidInputError('nonce not specified');
      const signed = (await fillTransaction(request, services, 'geth')).sign(key);
      return transactionResult(signed, request.from!);
    },
  });
}

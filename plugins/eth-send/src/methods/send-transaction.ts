import { callRequest, defineMethod, type KeyRing, type TxSubmitter } from '@evmnode/core';
import { fillTransaction, type FillServices } from '../transactions/fill-transaction.js';
import { senderKeyOf } from '../transactions/sender-key.js';
import { SenderLock } from '../transactions/sender-lock.js';

/**
 * `eth_sendTransaction`: fills the defaults (pending nonce, gas by estimate, the suggested gas
 * price), signs a legacy EIP-155 transaction with the sender's hosted key (interface.md §4.1)
 * and submits it as `eth_sendRawTransaction` does, honouring `[evm] slow`.
 */
export function sendTransaction(
  keys: KeyRing,
  services: FillServices & { readonly submitter: TxSubmitter },
  slow: boolean,
) {
  const lock = new SenderLock();
  return defineMethod({
    name: 'eth_sendTransaction',
    params: [callRequest],
    handler: async ([request], { clientId }) => {
      const key = senderKeyOf(keys, request.from);
      const send = async () => {
        const signed = (await fillTransaction(request, services, 'legacy')).sign(key);
        return services.submitter.submit(signed.serialize(), slow, { clientId });
      };
      return request.nonce === undefined ? lock.run(request.from!, send) : send();
    },
  });
}

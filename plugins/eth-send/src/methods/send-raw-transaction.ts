import { data, defineMethod, type TxSubmitter } from '@evmnode/core';

/**
 * `eth_sendRawTransaction`: admits a signed transaction into the pool and returns its hash, or
 * the rejection with geth's wording. In `slow` mode it answers once the transaction's block is
 * committed.
 */
export function sendRawTransaction(submitter: TxSubmitter, slow: boolean) {
  return defineMethod({
    name: 'eth_sendRawTransaction',
    params: [data],
    handler: ([raw], { clientId }) => submitter.submit(raw, slow, { clientId }),
  });
}

import { defineMethod, type KeyRing } from '@evmnode/core';

/** `eth_accounts`: the addresses of the hosted keys; none on a node that holds no keys. */
export function accounts(keys: KeyRing) {
  return defineMethod({ name: 'eth_accounts', params: [], handler: () => keys.addresses() });
}

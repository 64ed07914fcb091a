import {
  associationBySignatureTx,
  defineMethod,
  objectOf,
  string,
  TransactionRejectedError,
  type NativeLayer,
} from '@evmnode/core';

/** interface.md §2.9: the association request. */
const associationRequest = objectOf('evmrpc.AssociateRequest', {
  custom_message: string,
  r: string,
  s: string,
  v: string,
});

/**
 * `ext_associate` (decisions.md D5): broadcasts the gas-free association of the key that signed
 * keccak256(custom_message); null once admitted, the native check's refusal as -32003 (D3).
 */
export function associateMethod(native: NativeLayer) {
  return defineMethod({
    name: 'ext_associate',
    params: [associationRequest],
    handler: async ([request], { clientId }) => {
      const raw = associationBySignatureTx({
        customMessage: request.custom_message,
        r: request.r,
        s: request.s,
        v: request.v,
      });
      const checked = await native.submit(raw, { clientId });
      if (checked.code !== 0) {
        throw new TransactionRejectedError(checked.log, { code: checked.code, codespace: checked.codespace });
      }
      return null;
    },
  });
}

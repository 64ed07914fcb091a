import { bigIntToBytes, bytesToHex, concatBytes, hashPersonalMessage, setLengthLeft } from '@ethereumjs/util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { address, data, defineMethod, InvalidInputError, type KeyRing } from '@evmnode/core';

/**
 * `eth_sign`: the signature of the EIP-191 personal-message hash of `data`, as geth writes it:
 * r, s and v (27 or 28), 65 bytes.
 */
export function sign(keys: KeyRing) {
  return defineMethod({
    name: 'eth_sign',
    params: [address, data],
    handler: ([signer, message]) => {
      const key = keys.privateKeyOf(signer);
      if (key === undefined) throw new InvalidInputError('address does not have hosted key');
      const signature = secp256k1.Signature.fromBytes(
        secp256k1.sign(hashPersonalMessage(message), key, { prehash: false, format: 'recovered' }),
        'recovered',
      );
      const word = (value: bigint) => setLengthLeft(bigIntToBytes(value), 32);
      return bytesToHex(concatBytes(word(signature.r), word(signature.s), Uint8Array.of(27 + signature.recovery!)));
    },
  });
}

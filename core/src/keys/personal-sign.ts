import { bigIntToBytes, bytesToHex, concatBytes, hashPersonalMessage, setLengthLeft } from '@ethereumjs/util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { KeyRing } from './key-ring.js';
import { InvalidInputError } from '../errors/rpc-error.js';
import { defineMethod } from '../rpc/define-method.js';
import { address, data } from '../rpc/hex-codecs.js';

/**
 * `<prefix>_sign` (`eth_sign`, and its legacy namesake `ext_sign`): the signature of the EIP-191
 * personal-message hash of `data` with a hosted key, as geth writes it: r, s and v (27 or 28), 65 bytes.
 */
export function personalSignMethod(keys: KeyRing, prefix: 'eth' | 'ext') {
  return defineMethod({
    name: `${prefix}_sign`,
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

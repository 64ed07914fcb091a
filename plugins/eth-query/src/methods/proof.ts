import {
  address,
  arrayOf,
  blockRef,
  decodeStorageKey,
  defineMethod,
  InvalidInputError,
  string,
  type Chain,
  type MethodDefinition,
} from '@evmnode/core';

const LATEST = { kind: 'tag', tag: 'latest' } as const;

/**
 * `eth_getProof` in the chain's own form (interface.md §2.7): `{ address, hexValues, storageProof }`,
 * one proof operation per key (see `StorageProofOp`), with no account fields. Each of `hexValues`
 * is written as the reference node writes the stored word: 64 hex digits without `0x`, and an
 * empty string for a slot that is not set (zero slots are not stored).
 */
export function proofMethod(chain: Chain, maxKeys: number): MethodDefinition {
  return defineMethod({
    name: 'eth_getProof',
    // Keys are JSON strings decoded in the handler, after the count check, as geth and the reference node do.
    params: [address, arrayOf(string), blockRef.optional(LATEST)],
    handler: async ([who, keys, block]) => {
      if (keys.length > maxKeys) {
        throw new InvalidInputError(`too many storage keys: got ${keys.length}, max ${maxKeys}`);
      }
      const slots = keys.map(decodeStorageKey);
      const proofs = await chain.proofAt(who, slots, await chain.resolveHeight(block));
      return {
        address: who,
        hexValues: proofs.map(({ value }) => (value.some((byte) => byte !== 0) ? Buffer.from(value).toString('hex') : '')),
        storageProof: proofs.map(({ op }) => op),
      };
    },
  });
}

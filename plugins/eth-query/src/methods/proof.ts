import {
  address,
  arrayOf,
  blockRef,
  decodeStorageKey,
  defineMethod,
  InvalidInputError,
  LATEST_BLOCK,
  string,
  type ChainReader,
  type MethodDefinition,
} from '@evmnode/core';

/** A stored word as the reference node writes it: hex without `0x`, empty for zero (zero slots are not stored). */
function hexValue(value: Uint8Array): string {
  return value.some((byte) => byte !== 0) ? Buffer.from(value).toString('hex') : '';
}

/**
 * `eth_getProof` in the chain's own form (interface.md §2.7): `{ address, hexValues, storageProof }`,
 * one value and one proof operation (see `StorageProofOp`) per key, with no account fields.
 * Neither geth nor the interface defines `hexValues`' form, so it is the reference node's.
 */
export function proofMethod(chain: ChainReader, maxKeys: number): MethodDefinition {
  return defineMethod({
    name: 'eth_getProof',
    // Keys are JSON strings decoded in the handler, after the count check, as geth and the reference node do.
    params: [address, arrayOf(string), blockRef.optional(LATEST_BLOCK)],
    handler: async ([who, keys, block]) => {
      if (keys.length > maxKeys) {
        throw new InvalidInputError(`too many storage keys: got ${keys.length}, max ${maxKeys}`);
      }
      const slots = keys.map(decodeStorageKey);
      const proofs = await chain.proofAt(who, slots, await chain.resolveHeight(block));
      return {
        address: who,
        hexValues: proofs.map(({ value }) => hexValue(value)),
        storageProof: proofs.map(({ op }) => op),
      };
    },
  });
}

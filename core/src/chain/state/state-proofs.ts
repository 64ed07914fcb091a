import { RLP } from '@ethereumjs/rlp';
import { getMerkleStateProof, type MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, bytesToHex, hexToBytes, setLengthLeft, type PrefixedHexString } from '@ethereumjs/util';

/** The `type` of our storage proof operations: a slot proven through the secure Merkle-Patricia state trie. */
export const STORAGE_PROOF_TYPE = 'evmnode:mpt-storage';

/**
 * One `eth_getProof` storage proof operation (decisions.md D6): `key` is the 32-byte slot and
 * `data` the RLP list `[accountProof, storageProof]`, where `accountProof` lists the state trie's
 * nodes from the block's state root to the account (keyed by keccak256(address)) and
 * `storageProof` the account's storage trie nodes from its storage root to the slot (keyed by
 * keccak256(slot)), each node as its RLP encoding. A missing account or slot is proven by the path
 * that ends without it.
 */
export interface StorageProofOp {
  readonly type: typeof STORAGE_PROOF_TYPE;
  readonly key: PrefixedHexString;
  readonly data: PrefixedHexString;
}

/** A slot's value (32 bytes, zero when unset) and the operation that proves it. */
export interface StorageProof {
  readonly value: Uint8Array;
  readonly op: StorageProofOp;
}

/** Proves each of `slots` (32 bytes each) of `address` in `state`, in order. */
export async function storageProofs(
  state: MerkleStateManager,
  address: PrefixedHexString,
  slots: readonly Uint8Array[],
): Promise<StorageProof[]> {
  const proof = await getMerkleStateProof(state, new Address(hexToBytes(address)), [...slots]);
  const accountNodes = proof.accountProof.map((node) => hexToBytes(node));
  return slots.map((slot, index) => {
    // A missing account has no storage trie: its proof is the account path alone.
    const entry = proof.storageProof[index];
    const storageNodes = entry === undefined ? [] : entry.proof.map((node) => hexToBytes(node));
    return {
      value: setLengthLeft(hexToBytes(entry?.value ?? '0x'), 32),
      op: {
        type: STORAGE_PROOF_TYPE,
        key: bytesToHex(slot),
        data: bytesToHex(RLP.encode([accountNodes, storageNodes])),
      },
    };
  });
}

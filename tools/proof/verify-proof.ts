/**
 * Verifies evmnode's `eth_getProof` answers (interface.md §2.7): each storage proof operation
 * against the state root of the block it was asked at, with @ethereumjs/mpt's proof checks.
 */
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import {
  bytesToHex,
  createAccountFromRLP,
  equalsBytes,
  hexToBytes,
  KECCAK256_RLP,
  setLengthLeft,
  type PrefixedHexString,
} from '@ethereumjs/util';
import type { StorageProofOp } from '@evmnode/core';

// The compiler holds this to core's own constant; importing core's runtime would load the whole node.
const STORAGE_PROOF_TYPE: StorageProofOp['type'] = 'evmnode:mpt-storage';

/** The result of evmnode's `eth_getProof`. */
export interface ProofResult {
  readonly address: PrefixedHexString;
  readonly hexValues: readonly string[];
  readonly storageProof: readonly StorageProofOp[];
}

/** A proof that does not prove what it claims against the given state root. */
export class InvalidProofError extends Error {
  override readonly name = 'InvalidProofError';
}

/** The two node lists of an operation's `data`: `[accountProof, storageProof]`. */
function proofNodes(data: PrefixedHexString): { account: Uint8Array[]; storage: Uint8Array[] } {
  let decoded: unknown;
  try {
    decoded = RLP.decode(hexToBytes(data));
  } catch {
    throw new InvalidProofError('proof data is not RLP');
  }
  const isNodeList = (item: unknown): item is Uint8Array[] =>
    Array.isArray(item) && item.every((node) => node instanceof Uint8Array);
  if (!Array.isArray(decoded) || decoded.length !== 2 || !isNodeList(decoded[0]) || !isNodeList(decoded[1])) {
    throw new InvalidProofError('proof data is not an RLP list [accountProof, storageProof]');
  }
  return { account: decoded[0], storage: decoded[1] };
}

/** The value at `key` of the trie whose root is `root`, or null when the proof shows it absent. */
async function provenValue(
  root: Uint8Array,
  key: Uint8Array,
  nodes: Uint8Array[],
  what: string,
): Promise<Uint8Array | null> {
  // The empty trie has no node to walk: every key is absent from it.
  if (equalsBytes(root, KECCAK256_RLP) && nodes.length === 0) return null;
  try {
    return await verifyMerkleProof(key, nodes, { root, useKeyHashing: true });
  } catch {
    throw new InvalidProofError(`the ${what} proof does not match its root ${bytesToHex(root)}`);
  }
}

/**
 * Verifies one storage proof operation of `address` against `stateRoot` (the state root of the
 * block the proof was asked at) and returns the proven slot value, 32 bytes (zero when unset).
 *
 * @example
 * const value = await verifyStorageProofOp(result.storageProof[0], result.address, block.stateRoot);
 */
export async function verifyStorageProofOp(
  op: StorageProofOp,
  address: PrefixedHexString,
  stateRoot: PrefixedHexString,
): Promise<Uint8Array> {
  if (op.type !== STORAGE_PROOF_TYPE) {
    throw new InvalidProofError(`unknown proof operation type ${JSON.stringify(op.type)}`);
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(op.key)) throw new InvalidProofError(`proof key ${op.key} is not 32 bytes of hex`);
  const slot = hexToBytes(op.key);
  const nodes = proofNodes(op.data);
  const account = await provenValue(hexToBytes(stateRoot), hexToBytes(address), nodes.account, 'account');
  // A missing account has the empty storage trie.
  const storageRoot = account === null ? KECCAK256_RLP : createAccountFromRLP(account).storageRoot;
  const stored = await provenValue(storageRoot, slot, nodes.storage, 'storage');
  if (stored === null) return new Uint8Array(32);
  const value = RLP.decode(stored);
  if (!(value instanceof Uint8Array) || value.length > 32) {
    throw new InvalidProofError(`the proven value of ${op.key} is not a storage word`);
  }
  return setLengthLeft(value, 32);
}

/** A proven value as `hexValues` writes it: 64 hex digits without `0x`, or empty when zero. */
function hexValueOf(value: Uint8Array): string {
  return value.some((byte) => byte !== 0) ? bytesToHex(value).slice(2) : '';
}

/**
 * Verifies every operation of an `eth_getProof` result against `stateRoot`, and that each of
 * `hexValues` is the value its operation proves; returns the proven values (32 bytes each). The
 * caller checks that `result.address` and the operations' keys are the ones it asked for.
 */
export async function verifyProofResult(result: ProofResult, stateRoot: PrefixedHexString): Promise<Uint8Array[]> {
  if (result.hexValues.length !== result.storageProof.length) {
    throw new InvalidProofError(
      `${result.hexValues.length} hexValues for ${result.storageProof.length} proof operations`,
    );
  }
  const values: Uint8Array[] = [];
  for (const [index, op] of result.storageProof.entries()) {
    const value = await verifyStorageProofOp(op, result.address, stateRoot);
    if (hexValueOf(value) !== result.hexValues[index]) {
      throw new InvalidProofError(
        `hexValues[${index}] is ${JSON.stringify(result.hexValues[index])}; the proof shows ${JSON.stringify(hexValueOf(value))}`,
      );
    }
    values.push(value);
  }
  return values;
}

import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { sha256 } from '@noble/hashes/sha2.js';

/** The consensus header of a block: what its hash commits to (decisions.md D4). */
export interface ConsensusHeader {
  readonly chainId: bigint;
  readonly height: bigint;
  /** Block time in milliseconds since the epoch. */
  readonly timeMs: bigint;
  readonly parentHash: PrefixedHexString;
  /** SHA-256 over the block's native transaction hashes. */
  readonly dataHash: PrefixedHexString;
  /** The state root after the previous block. */
  readonly appHash: PrefixedHexString;
  readonly proposer: PrefixedHexString;
}

/** The canonical encoding: RLP of the fields in declaration order, numbers unpadded. */
export function encodeConsensusHeader(header: ConsensusHeader): Uint8Array {
  return RLP.encode([
    bigIntToUnpaddedBytes(header.chainId),
    bigIntToUnpaddedBytes(header.height),
    bigIntToUnpaddedBytes(header.timeMs),
    hexToBytes(header.parentHash),
    hexToBytes(header.dataHash),
    hexToBytes(header.appHash),
    hexToBytes(header.proposer),
  ]);
}

/** The block hash: SHA-256 of the canonical header encoding, not keccak of an Ethereum header. */
export function consensusHeaderHash(header: ConsensusHeader): PrefixedHexString {
  return bytesToHex(sha256(encodeConsensusHeader(header)));
}

/** The data hash of a block's native transaction hashes. */
export function dataHashOf(nativeHashes: readonly Uint8Array[]): PrefixedHexString {
  const joined = new Uint8Array(nativeHashes.length * 32);
  nativeHashes.forEach((hash, index) => joined.set(hash, index * 32));
  return bytesToHex(sha256(joined));
}

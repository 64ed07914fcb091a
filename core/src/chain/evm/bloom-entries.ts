import { Bloom } from '@ethereumjs/vm';

/**
 * ethereumjs' `runTx` puts each log's emitter and topics into the transaction's bloom, in one go,
 * and `Bloom.add` hashes every entry with Keccak-256: a 60M-gas transaction of 140,000 logs held
 * the node's thread for 340-390 ms doing so, at production and at every replay and trace of it.
 * Most entries repeat (a contract's address, its events' signatures), so the bits each sets are
 * kept here, by entry, and each is hashed once while it stays among the last few thousand. An entry
 * equal to the one added to the same bloom just before sets nothing new, and is not looked up: the
 * emitter of a call frame's logs, when they have no topics, comes 140,000 times in a row.
 */

/** Entries whose bits are kept; all are dropped at once past this (about 0.5 MB). */
const MAX_ENTRIES = 4096;
const BLOOM_BYTES = 256;

/**
 * The three bits the bloom of the yellow paper (4.3.1, M3:2048) sets for an entry hashed to
 * `hash`: as byte index and mask pairs into the 256-byte bit vector, the order ethereumjs keeps it in.
 */
export function bloomBits(hash: Uint8Array): number[] {
  const bits: number[] = [];
  for (let pair = 0; pair < 3; pair++) {
    const position = ((hash[2 * pair]! << 8) | hash[2 * pair + 1]!) & 2047;
    bits.push(BLOOM_BYTES - 1 - (position >> 3), 1 << (position & 7));
  }
  return bits;
}

const bitsByEntry = new Map<string, number[]>();

interface BloomInternals {
  readonly bitvector: Uint8Array;
  readonly keccakFunction: (data: Uint8Array) => Uint8Array;
  /** A copy of the entry added last, kept on the bloom by this module. */
  [lastEntry]?: Uint8Array;
}

const lastEntry = Symbol('the entry added last');

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

const prototype = Bloom.prototype as unknown as { add(this: BloomInternals, entry: Uint8Array): void };
prototype.add = function (entry) {
  const last = this[lastEntry];
  if (last !== undefined && equalBytes(last, entry)) return;
  this[lastEntry] = entry.slice();
  const key = Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength).toString('latin1');
  let bits = bitsByEntry.get(key);
  if (bits === undefined) {
    bits = bloomBits(this.keccakFunction(entry));
    if (bitsByEntry.size >= MAX_ENTRIES) bitsByEntry.clear();
    bitsByEntry.set(key, bits);
  }
  for (let index = 0; index < bits.length; index += 2) {
    const byte = bits[index]!;
    this.bitvector[byte] = this.bitvector[byte]! | bits[index + 1]!;
  }
};

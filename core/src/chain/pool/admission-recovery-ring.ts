/**
 * The memory that the node's thread and the admission recovery worker share: a ring of slots,
 * each holding one raw transaction on the way in and its sender's public key on the way out, and
 * two counters that say how far each side has got. Both threads build the same views of it here.
 */

/** Transactions in the worker's hands at once (a power of two: counters wrap, slots follow). */
export const SLOTS = 256;
/** The largest raw transaction a slot carries: a token transfer takes about 180 bytes. */
export const SLOT_BYTES = 1024;
/** An uncompressed public key without its 0x04 prefix, as ethereumjs keeps it. */
export const PUBLIC_KEY_BYTES = 64;
/** A slot's length once the worker found no sender: the transaction does not decode or its signature recovers none. */
export const NO_SENDER = -1;

/** Control words: transactions handed over and transactions done, each counted since the ring began. */
export const HANDED = 0;
export const DONE = 1;

const CONTROL_WORDS = 2;
export const RING_BYTES = 4 * CONTROL_WORDS + 4 * SLOTS + SLOTS * SLOT_BYTES;

export interface RingViews {
  readonly control: Int32Array;
  /** Per slot: the raw transaction's length, then the public key's, or {@link NO_SENDER}. */
  readonly lengths: Int32Array;
  readonly data: Uint8Array;
}

export function ringViews(shared: SharedArrayBuffer): RingViews {
  return {
    control: new Int32Array(shared, 0, CONTROL_WORDS),
    lengths: new Int32Array(shared, 4 * CONTROL_WORDS, SLOTS),
    data: new Uint8Array(shared, 4 * CONTROL_WORDS + 4 * SLOTS, SLOTS * SLOT_BYTES),
  };
}

/** The slot of the `count`-th transaction (a counter, wrapped at 2^32). */
export function slotOf(count: number): number {
  return count & (SLOTS - 1);
}

export interface AdmissionRecoveryData {
  readonly chainId: bigint;
  readonly shared: SharedArrayBuffer;
}

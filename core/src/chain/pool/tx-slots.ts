/**
 * The pools count room as geth does, in slots of 32 KB: a transfer takes one, a 128 KB transaction
 * four. Counted in transactions, a pool of large ones would hold 128 times the bytes of a pool of
 * transfers (1.4 GB of memory at the default size, measured); and since a transaction takes at
 * least one slot, a newcomer still evicts at most four.
 */
const TX_SLOT_BYTES = 32 * 1024;

/** The slots a raw transaction takes. */
export function slotsOf(raw: Uint8Array): number {
  return Math.max(1, Math.ceil(raw.length / TX_SLOT_BYTES));
}

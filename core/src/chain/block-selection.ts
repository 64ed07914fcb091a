import type { NativeTransaction } from './native/native-transaction.js';
import type { PooledTransaction } from './pool/pooled-transaction.js';

/** The transactions a block would take, chosen at `started` (a `performance.now()` time). */
export interface Selection {
  readonly started: number;
  /** The pool's ready transactions, in its order: each sender's by nonce. */
  readonly candidates: readonly PooledTransaction[];
  readonly nativeCandidates: readonly NativeTransaction[];
}

/** What a selection's gas limits add up to: how much a block of it may take. */
export function gasLimitsOf({ candidates, nativeCandidates }: Selection): number {
  let gasLimits = 0;
  for (const { gasLimit } of nativeCandidates) gasLimits += Number(gasLimit);
  for (const { tx } of candidates) gasLimits += Number(tx.gasLimit);
  return gasLimits;
}

/**
 * The selection with only as many EVM candidates, in order, as gas limits adding up to `most`
 * allow. Native candidates, which run first, count against it and are all kept. A prefix of the
 * pool's ready order keeps each sender's nonces in sequence; the others wait for a later block.
 */
export function selectionWithin(selection: Selection, most: number): Selection {
  let gasLimits = 0;
  for (const { gasLimit } of selection.nativeCandidates) gasLimits += Number(gasLimit);
  const { candidates } = selection;
  let kept = 0;
  while (kept < candidates.length && gasLimits + Number(candidates[kept]!.tx.gasLimit) <= most)
    gasLimits += Number(candidates[kept++]!.tx.gasLimit);
  return kept === candidates.length ? selection : { ...selection, candidates: candidates.slice(0, kept) };
}

import type { IndexedBlock, LogPosition } from './log-index.js';

/** A log a scan found: its stored bytes when its index holds them, else only where it is. */
export interface Candidate {
  readonly position: LogPosition;
  readonly stored?: Uint8Array;
}

async function nextOf(iterator: AsyncIterator<IndexedBlock>): Promise<IndexedBlock | undefined> {
  const next = await iterator.next();
  return next.done === true ? undefined : next.value;
}

function candidatesOf(block: IndexedBlock): Candidate[] {
  return block.kind === 'logs' ? block.logs : block.positions.map((position): Candidate => ({ position }));
}

/**
 * One candidate index of a query, a union of index keys (several addresses, or several topics at
 * one position), read block by block in height order: each key's entries are in height order, so
 * the union is a merge of them.
 */
export class IndexScan {
  readonly #iterators: AsyncIterator<IndexedBlock>[];
  #heads: (IndexedBlock | undefined)[] | undefined;
  /** How many candidates this scan has yielded so far. */
  read = 0;

  constructor(sources: readonly AsyncIterable<IndexedBlock>[]) {
    this.#iterators = sources.map((source) => source[Symbol.asyncIterator]());
  }

  /** The candidates of the next block any key has, in log order; undefined at the end. */
  async nextBlock(): Promise<Candidate[] | undefined> {
    this.#heads ??= await Promise.all(this.#iterators.map(nextOf));
    const heads = this.#heads;
    let height = Number.POSITIVE_INFINITY;
    for (const head of heads) if (head !== undefined && head.height < height) height = head.height;
    if (height === Number.POSITIVE_INFINITY) return undefined;
    const candidates: Candidate[] = [];
    for (let index = 0; index < heads.length; index++) {
      const head = heads[index];
      if (head?.height !== height) continue;
      for (const candidate of candidatesOf(head)) candidates.push(candidate);
      heads[index] = await nextOf(this.#iterators[index]!);
    }
    if (heads.length > 1) candidates.sort((a, b) => a.position.logIndex - b.position.logIndex);
    this.read += candidates.length;
    return candidates;
  }

  async close(): Promise<void> {
    // Returning ends the store's iterators early (async generators always have `return`).
    await Promise.all(this.#iterators.map((iterator) => iterator.return!()));
  }
}

/**
 * Of several scans that all cover the answer, the one with the fewest candidates, read whole, as
 * a list of blocks. The scans take turns of about `turn` candidates, so the work is at most their
 * number times the shortest one's length.
 */
export async function shortestScan(
  scans: readonly IndexScan[],
  turn: number,
): Promise<{ readonly index: number; readonly blocks: Candidate[][] }> {
  const blocks = scans.map((): Candidate[][] => []);
  for (;;) {
    for (const [index, scan] of scans.entries()) {
      const target = scan.read + turn;
      while (scan.read < target) {
        const block = await scan.nextBlock();
        if (block === undefined) return { index, blocks: blocks[index]! };
        blocks[index]!.push(block);
      }
    }
  }
}

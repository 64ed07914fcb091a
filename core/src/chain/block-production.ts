import type { PrefixedHexString } from '@ethereumjs/util';

/**
 * One block an on-demand producer is making, from before it picks its transactions to its commit
 * (or abandonment). A receipt asked for meanwhile waits for it when the block holds that
 * transaction: the client that sent it and polls for its receipt gets the receipt at its first
 * try, as from an automining development node, rather than null and a wait for its next poll.
 */
export class BlockProduction {
  #select!: (hashes: ReadonlySet<PrefixedHexString>) => void;
  readonly #selected = new Promise<ReadonlySet<PrefixedHexString>>((resolve) => (this.#select = resolve));
  #end!: () => void;
  /** Resolves once the block is committed and published, or abandoned. */
  readonly ended = new Promise<void>((resolve) => (this.#end = resolve));

  /** The EVM transactions the block is made of. */
  selected(hashes: Iterable<PrefixedHexString>): void {
    this.#select(new Set(hashes));
  }

  /** The block is committed and published, or abandoned (or not made, having nothing to hold). */
  end(): void {
    this.#select(new Set());
    this.#end();
  }

  /** Whether the block holds EVM transaction `hash`, once its transactions are picked. */
  async holds(hash: PrefixedHexString): Promise<boolean> {
    return (await this.#selected).has(hash);
  }
}

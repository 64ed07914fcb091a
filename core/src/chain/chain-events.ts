import type { CommittedBlock } from './records.js';
import type { BlockListener } from '../api/chain-reader.js';

/**
 * The in-process event bus: every block is published once it is durable, in height order, to
 * filters, subscriptions and anything else that follows the chain.
 */
export class ChainEvents {
  readonly #listeners = new Set<BlockListener>();
  readonly #arrivalListeners = new Set<() => void>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  /** Calls `listener` for every block committed from now on; returns the function that stops it. */
  onBlock(listener: BlockListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls `listener` whenever a transaction enters a pool (EVM or native); returns the function that stops it. */
  onArrival(listener: () => void): () => void {
    this.#arrivalListeners.add(listener);
    return () => this.#arrivalListeners.delete(listener);
  }

  /** A transaction entered a pool: the on-demand block producer may start a block. */
  arrived(): void {
    for (const listener of this.#arrivalListeners) listener();
  }

  publish(committed: CommittedBlock): void {
    for (const listener of this.#listeners) {
      try {
        listener(committed);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}

import type { NativeTransfer } from './native-types.js';

/**
 * What the native side did inside one EVM execution: the bank transfers precompiles made (for
 * tracers) and the last native refusal (which a failed call reports as a cross-VM error). One
 * per VM; whoever runs a transaction or call resets it first.
 */
export class NativeEffects {
  #failure: string | undefined;
  readonly #listeners = new Set<(transfer: NativeTransfer) => void>();

  reset(): void {
    this.#failure = undefined;
  }

  /** A native operation refused: `details` is its message. */
  failed(details: string): void {
    this.#failure = details;
  }

  /** The last refusal since the reset, if any. */
  failure(): string | undefined {
    return this.#failure;
  }

  transferred(transfer: NativeTransfer): void {
    for (const listener of this.#listeners) listener(transfer);
  }

  /** Calls `listener` for every transfer until the returned function is called. */
  onTransfer(listener: (transfer: NativeTransfer) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

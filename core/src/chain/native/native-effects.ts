import { equalsBytes } from '@ethereumjs/util';
import type { NativeTransfer } from './native-types.js';

/** A native operation's refusal: its message, and the revert data of the frame that refused. */
interface NativeFailure {
  readonly details: string;
  readonly revertData: Uint8Array;
}

/**
 * What the native side did inside one EVM execution: the bank transfers precompiles made (for
 * tracers) and the last native refusal (which a failed call reports as a cross-VM error). One
 * per VM; whoever runs a transaction or call resets it first.
 */
export class NativeEffects {
  #failure: NativeFailure | undefined;
  readonly #listeners = new Set<(transfer: NativeTransfer) => void>();

  reset(): void {
    this.#failure = undefined;
  }

  /** A native operation refused: `details` is its message, `revertData` what its frame reverted with. */
  failed(details: string, revertData: Uint8Array): void {
    this.#failure = { details, revertData };
  }

  /**
   * The message of the refusal that ended a call reverting with `revertData`: the last refusal
   * since the reset, provided every frame above it passed its revert data on unchanged. A
   * contract that caught the refusal and reverted for a reason of its own is not a native failure.
   */
  failureBehind(revertData: Uint8Array): string | undefined {
    const failure = this.#failure;
    return failure !== undefined && equalsBytes(failure.revertData, revertData) ? failure.details : undefined;
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

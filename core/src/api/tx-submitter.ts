import type { PrefixedHexString } from '@ethereumjs/util';

/** Submission of signed EVM transactions to the node's pool (decisions.md D4's checks). */
export interface TxSubmitter {
  /**
   * Admits a signed transaction and returns its hash, or throws the rejection as geth words it;
   * with `waitForCommit` (the `slow` mode), resolves only once the block that includes it (or
   * drops it) is committed.
   */
  submit(raw: Uint8Array, waitForCommit: boolean): Promise<PrefixedHexString>;
}

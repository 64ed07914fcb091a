import type { PrefixedHexString } from '@ethereumjs/util';

/** Who submits a transaction: a node that forwards submissions gives one client a share of its forwards. */
export interface SubmitOptions {
  /** The client sending it (`RequestContext.clientId`); without one, only the node's own bound applies. */
  readonly clientId?: string;
}

/** Submission of signed EVM transactions to the node's pool (decisions.md D4's checks). */
export interface TxSubmitter {
  /**
   * Admits a signed transaction and returns its hash, or throws the rejection as geth words it;
   * with `waitForCommit` (the `slow` mode), resolves only once the block that includes it (or
   * drops it) is committed.
   */
  submit(raw: Uint8Array, waitForCommit: boolean, options?: SubmitOptions): Promise<PrefixedHexString>;
}

import { formatHeader, formatLog, type CommittedBlock, type LogRecord } from '@evmnode/core';

/**
 * A committed block as its notifications are made, shared by every client it is pushed to: its
 * header and each of its logs are formatted once, by the first client that needs them.
 */
export class BlockPush {
  #logs: readonly LogRecord[] | undefined;
  #header: Record<string, unknown> | undefined;
  readonly #logJson: (Record<string, unknown> | undefined)[] = [];

  constructor(readonly committed: CommittedBlock) {}

  /** The block's logs, in order. */
  get logs(): readonly LogRecord[] {
    return (this.#logs ??= this.committed.receipts.flatMap((receipt) => receipt.logs));
  }

  get header(): Record<string, unknown> {
    return (this.#header ??= formatHeader(this.committed.block));
  }

  /** The JSON of log `index`, in block order. */
  logJson(index: number): Record<string, unknown> {
    const { hash, height } = this.committed.block;
    return (this.#logJson[index] ??= formatLog(this.logs[index]!, hash, height));
  }
}

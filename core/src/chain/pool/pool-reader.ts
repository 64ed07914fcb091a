import type { PrefixedHexString } from '@ethereumjs/util';
import type { TxPool } from './tx-pool.js';
import type { PoolTransaction, SenderPool, TxPoolReader } from '../../api/tx-pool-reader.js';

/** The pool as plugins read it: {@link TxPool}'s contents, and pending nonces from the chain's head. */
export class PoolReader implements TxPoolReader {
  constructor(
    private readonly pool: TxPool,
    private readonly pendingNonceOf: (sender: PrefixedHexString) => Promise<bigint>,
  ) {}

  counts(): { readonly pending: number; readonly queued: number } {
    return { pending: this.pool.size - this.pool.queued, queued: this.pool.queued };
  }

  content(): ReadonlyMap<PrefixedHexString, SenderPool> {
    return this.pool.content();
  }

  contentFrom(sender: PrefixedHexString): SenderPool {
    return this.pool.contentFrom(sender);
  }

  byHash(hash: PrefixedHexString): PoolTransaction | undefined {
    return this.pool.byHash(hash);
  }

  pendingNonce(sender: PrefixedHexString): Promise<bigint> {
    return this.pendingNonceOf(sender);
  }
}

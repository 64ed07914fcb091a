import { workerData } from 'node:worker_threads';
import { createTxFromRLP } from '@ethereumjs/tx';
import { evmCommon } from '../evm/evm-common.js';
import { fastTxOptions } from './raw-transaction.js';
import {
  DONE,
  HANDED,
  NO_SENDER,
  ringViews,
  SLOT_BYTES,
  slotOf,
  type AdmissionRecoveryData,
} from './admission-recovery-ring.js';

const { chainId, shared } = workerData as AdmissionRecoveryData;
const options = fastTxOptions(evmCommon(chainId));
const { control, lengths, data } = ringViews(shared);

/** Writes the public key of the slot's transaction over it, or marks it as having none. */
function recover(slot: number): void {
  const offset = slot * SLOT_BYTES;
  // A copy: what is decoded keeps views of its input, and the slot is reused.
  const raw = data.slice(offset, offset + lengths[slot]!);
  try {
    const publicKey = createTxFromRLP(raw, options).getSenderPublicKey();
    data.set(publicKey, offset);
    lengths[slot] = publicKey.length;
  } catch {
    lengths[slot] = NO_SENDER;
  }
}

// The thread exists for this loop: it sleeps until a transaction is handed over and is ended by
// `terminate()`, which interrupts the wait.
let done = 0;
for (;;) {
  Atomics.wait(control, HANDED, done);
  const handed = Atomics.load(control, HANDED);
  while (done !== handed) {
    recover(slotOf(done));
    done = (done + 1) | 0;
    // The store publishes the slot's writes to the node's thread, which reads them once it sees the count.
    Atomics.store(control, DONE, done);
    Atomics.notify(control, DONE);
  }
}

import { bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import type { NativeTransaction } from './native-transaction.js';
import { slotsOf } from '../pool/tx-slots.js';

/**
 * Admitted native transactions, in arrival order, which is the order blocks include them in.
 * Each signer's transactions are admitted in sequence order (admission checks the sequence
 * against the head and the signer's transactions already here), so arrival order keeps it.
 */
export class NativePool {
  readonly #byHash = new Map<PrefixedHexString, NativeTransaction>();
  readonly #countBySigner = new Map<PrefixedHexString, number>();
  #slots = 0;

  /** `limit`: the most slots its transactions take, as the EVM pool counts them (`[mempool] size`). */
  constructor(readonly limit: number) {}

  get size(): number {
    return this.#byHash.size;
  }

  /** Whether `raw` would take more room than is left. */
  wouldOverflow(raw: Uint8Array): boolean {
    return this.#slots + slotsOf(raw) > this.limit;
  }

  has(hash: Uint8Array): boolean {
    return this.#byHash.has(bytesToHex(hash));
  }

  /** How many of `signer`'s transactions wait here: the sequence a new one must carry is past them. */
  pendingCount(signer: Uint8Array): bigint {
    return BigInt(this.#countBySigner.get(bytesToHex(signer)) ?? 0);
  }

  add(tx: NativeTransaction): void {
    this.#byHash.set(bytesToHex(tx.hash), tx);
    this.#slots += slotsOf(tx.raw);
    const signer = bytesToHex(tx.signer.bytes);
    this.#countBySigner.set(signer, (this.#countBySigner.get(signer) ?? 0) + 1);
  }

  /** Forgets transactions a block included or dropped. */
  remove(hashes: Iterable<PrefixedHexString>): void {
    for (const hash of hashes) {
      const tx = this.#byHash.get(hash);
      if (tx === undefined) continue;
      this.#byHash.delete(hash);
      this.#slots -= slotsOf(tx.raw);
      const signer = bytesToHex(tx.signer.bytes);
      const left = (this.#countBySigner.get(signer) ?? 1) - 1;
      if (left === 0) this.#countBySigner.delete(signer);
      else this.#countBySigner.set(signer, left);
    }
  }

  /** Everything waiting, in arrival order. */
  transactions(): NativeTransaction[] {
    return [...this.#byHash.values()];
  }
}

import { bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import type { Delivered } from './native-executor.js';
import type { NativeTransaction } from './native-transaction.js';
import type { BlockRecord, StoredNativeTx, SyntheticTxRecord } from '../records.js';
import { toQuantity } from '../../rpc/hex-codecs.js';

/** What a block stores of its native transactions. */
export interface NativeBlockRecords {
  readonly stored: StoredNativeTx[];
  readonly synthetic: SyntheticTxRecord[];
  readonly views: BlockRecord['synthetic'];
}

/**
 * The stored results of a block's native transactions (which take the block's first indexes) and
 * their synthetic transactions, in the order each legacy view lists them. Pointer-transfer logs
 * are numbered in the `ext` view, where synthetic transactions and their logs come first.
 */
export function nativeRecordsOf(
  natives: readonly { readonly tx: NativeTransaction; readonly result: Delivered }[],
  height: number,
): NativeBlockRecords {
  const stored: StoredNativeTx[] = [];
  const synthetic: SyntheticTxRecord[] = [];
  const ext: PrefixedHexString[] = [];
  const ext2: PrefixedHexString[] = [];
  natives.forEach(({ tx, result }, index) => {
    const nativeHash = bytesToHex(tx.hash);
    for (const draft of result.synthetic) {
      const logs =
        draft.transferLog === undefined
          ? []
          : [{ ...draft.transferLog, logIndex: ext.length, transactionIndex: ext.length, transactionHash: draft.hash }];
      synthetic.push({
        hash: draft.hash,
        kind: draft.kind,
        nativeHash,
        from: draft.from,
        to: draft.to,
        value: toQuantity(draft.value),
        input: draft.input,
        logs,
      });
      // decisions.md D5: pointer transfers show in the `ext_` views only, bank sends in `ext2_`.
      if (draft.kind === 'pointer-transfer') ext.push(draft.hash);
      else ext2.push(draft.hash);
    }
    stored.push({
      hash: nativeHash,
      height,
      index,
      code: result.code,
      codespace: result.codespace,
      log: result.log,
      gasWanted: toQuantity(tx.gasLimit),
      gasUsed: toQuantity(result.gasUsed),
      events: result.events,
      tx: bytesToHex(tx.raw),
      data: bytesToHex(result.data),
      synthetic: result.synthetic.map(({ hash }) => hash),
    });
  });
  return { stored, synthetic, views: { ext, ext2 } };
}

import { parentPort, workerData } from 'node:worker_threads';
import { evmCommon } from '../evm/evm-common.js';
import { nativeTxHash, unwrapEvmTransaction, wrapEvmTransaction } from '../native-tx.js';
import { decodeSignedTransaction, fastTxOptions } from '../pool/raw-transaction.js';
import type {
  RecoveredTransaction,
  RecoveryReply,
  RecoveryRequest,
  RecoveryWorkerData,
} from './sender-recovery-thread.js';

const options = fastTxOptions(evmCommon((workerData as RecoveryWorkerData).chainId));

function recovered(encoded: string): RecoveredTransaction {
  const bytes = Buffer.from(encoded, 'base64');
  const raw = unwrapEvmTransaction(bytes);
  // Copies (`new Uint8Array`): a small Buffer, and what is decoded from it, are views of a shared
  // pool or of a larger buffer, which a message would carry whole.
  if (raw === undefined) return { kind: 'native', bytes: new Uint8Array(bytes) };
  try {
    const tx = decodeSignedTransaction(raw, options);
    const senderPublicKey = new Uint8Array(tx.getSenderPublicKey());
    const nativeHash = nativeTxHash(wrapEvmTransaction(raw));
    return { kind: 'evm', raw: new Uint8Array(raw), senderPublicKey, hash: tx.hash(), nativeHash };
  } catch (error) {
    return { kind: 'invalid', reason: (error as Error).message };
  }
}

parentPort?.on('message', ({ id, txs }: RecoveryRequest) => {
  parentPort?.postMessage({ id, transactions: txs.map(recovered) } satisfies RecoveryReply);
});

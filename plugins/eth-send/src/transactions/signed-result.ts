import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { formatTransaction } from '@evmnode/core';

/** Fields of a transaction in a block, which a transaction not sent has not. */
const BLOCK_FIELDS = ['blockHash', 'blockNumber', 'blockTimestamp', 'transactionIndex'] as const;

/** What `eth_signTransaction` and `eth_fillTransaction` answer, as geth's `SignTransactionResult`. */
export interface TransactionResult {
  /** The RLP encoding (EIP-2718 for typed transactions); an unsigned one has zero v, r and s. */
  readonly raw: PrefixedHexString;
  /** The transaction as `eth_getTransactionByHash` shows a pending one, without block fields. */
  readonly tx: Record<string, unknown>;
}

/**
 * `{raw, tx}` of a signed or unsigned transaction from `from`. Its hash is the Keccak-256 of
 * `raw`, as geth hashes an unsigned transaction with a zero signature.
 */
export function transactionResult(tx: TypedTransaction, from: PrefixedHexString): TransactionResult {
  const raw = tx.serialize();
  const json = formatTransaction(tx, { hash: bytesToHex(keccak_256(raw)), from });
  for (const field of BLOCK_FIELDS) delete json[field];
  return { raw: bytesToHex(raw), tx: json };
}

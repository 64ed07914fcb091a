import { hash } from 'node:crypto';
import { TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';

/** The type URL of the message that carries a signed EVM transaction inside a native transaction. */
export const EVM_TX_TYPE_URL = '/evmnode.evm.v1.MsgEVMTransaction';

/**
 * Wraps a signed EVM transaction in a native (Cosmos SDK `TxRaw`) transaction, as every EVM
 * transaction is on this chain. The EVM signature authenticates it, so the native one carries none.
 */
export function wrapEvmTransaction(rawEvmTx: Uint8Array): Uint8Array {
  const body = TxBody.encode(
    TxBody.fromPartial({ messages: [{ typeUrl: EVM_TX_TYPE_URL, value: rawEvmTx }] }),
  ).finish();
  return TxRaw.encode(TxRaw.fromPartial({ bodyBytes: body })).finish();
}

/** The signed EVM transaction a native one carries, when it is only that wrapper; undefined otherwise. */
export function unwrapEvmTransaction(nativeTx: Uint8Array): Uint8Array | undefined {
  let body: TxBody;
  try {
    const raw = TxRaw.decode(nativeTx);
    if (raw.signatures.length > 0 || raw.authInfoBytes.length > 0) return undefined;
    body = TxBody.decode(raw.bodyBytes);
  } catch {
    return undefined;
  }
  const [message, ...others] = body.messages;
  return message?.typeUrl === EVM_TX_TYPE_URL && others.length === 0 ? message.value : undefined;
}

/** A native transaction's hash: SHA-256 of its bytes (Node's one-shot hash: a third of the pure-JS one's time). */
export function nativeTxHash(nativeTx: Uint8Array): Uint8Array {
  return hash('sha256', nativeTx, 'buffer');
}

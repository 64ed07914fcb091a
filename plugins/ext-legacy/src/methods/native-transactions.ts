import { defineMethod, hash, InvalidInputError, string, type ChainReader, type NativeLayer } from '@evmnode/core';

/** `ext_getNativeTx` and its alias `ext_getCosmosTx` (decisions.md D1): answered by one definition. */
const NATIVE_TX_NAMES = ['ext_getNativeTx', 'ext_getCosmosTx'] as const;

/** The bytes of a native hash as Go's `hex.DecodeString` reads it (either case), with its errors; `0x` is allowed too. */
function nativeHashBytes(text: string): Uint8Array {
  const digits = /^0x/i.test(text) ? text.slice(2) : text;
  const invalid = [...digits].find((char) => !/[0-9a-f]/i.test(char));
  if (invalid !== undefined) {
    const codePoint = invalid.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw new InvalidInputError(`failed to decode cosmosHash: encoding/hex: invalid byte: U+${codePoint} '${invalid}'`);
  }
  if (digits.length % 2 !== 0)
    throw new InvalidInputError('failed to decode cosmosHash: encoding/hex: odd length hex string');
  return Uint8Array.from(Buffer.from(digits, 'hex'));
}

/** Native tooling's form of a hash: upper-case hex without `0x` (decisions.md D1). */
function nativeHashText(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').toUpperCase();
}

/** An EVM transaction and the native transaction wrapping it, each found from the other (interface.md §4.11). */
export function nativeTransactionMethods(chain: ChainReader, native: NativeLayer) {
  return [
    ...NATIVE_TX_NAMES.map((name) =>
      defineMethod({
        name,
        params: [hash],
        handler: async ([txHash]) => {
          const nativeHash = await chain.nativeTxHashOf(txHash);
          if (nativeHash === undefined) throw new InvalidInputError('receipt not found');
          return nativeHashText(nativeHash);
        },
      }),
    ),
    defineMethod({
      name: 'ext_getEvmTx',
      params: [string],
      handler: async ([text]) => {
        const nativeHash = nativeHashBytes(text);
        const evmHash = await chain.evmTxHashOf(nativeHash);
        if (evmHash !== undefined) return evmHash;
        // The reference node's words: the gateway's for an unknown hash, its own for a native-only transaction.
        if ((await native.txByHash(nativeHash)) === undefined) {
          throw new InvalidInputError(`tx (${nativeHashText(nativeHash)}) not found`);
        }
        throw new InvalidInputError('transaction is not an EVM transaction');
      },
    }),
  ];
}

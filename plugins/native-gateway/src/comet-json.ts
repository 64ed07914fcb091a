import type { NativeCheckResult, NativeEvent, NativeTxRecord } from '@evmnode/core';
import { base64, hex } from '@scure/base';

/** How CometBFT writes hashes and addresses in JSON: upper-case hex, no `0x`. */
export function upperHex(bytes: Uint8Array): string {
  return hex.encode(bytes).toUpperCase();
}

/** `0x`-prefixed hex as CometBFT writes it. */
export function upperHexOf(prefixed: string): string {
  return prefixed.slice(2).toUpperCase();
}

/** Go's RFC3339Nano of a time in milliseconds: the fraction without trailing zeros. */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

function eventsJson(events: readonly NativeEvent[]): object[] {
  return events.map(({ type, attributes }) => ({
    type,
    attributes: attributes.map(({ key, value }) => ({ key, value, index: true })),
  }));
}

/** ABCI `ResponseCheckTx` (CometBFT 0.38): int64 fields are strings in CometBFT's JSON. */
export function checkTxJson(result: NativeCheckResult): object {
  return {
    code: result.code,
    data: '',
    log: result.log,
    info: '',
    gas_wanted: result.gasWanted.toString(),
    gas_used: result.gasUsed.toString(),
    events: [],
    codespace: result.codespace,
  };
}

/** ABCI `ExecTxResult` (CometBFT 0.38): what a committed transaction did. */
export function execTxResultJson(record: NativeTxRecord): object {
  return {
    code: record.code,
    data: base64.encode(record.data),
    log: record.log,
    info: '',
    gas_wanted: record.gasWanted.toString(),
    gas_used: record.gasUsed.toString(),
    events: eventsJson(record.events),
    codespace: record.codespace,
  };
}

/** The `ExecTxResult` of a transaction that never ran, as `broadcast_tx_commit` shows it after a failed check. */
export const EMPTY_EXEC_TX_RESULT = {
  code: 0,
  data: '',
  log: '',
  info: '',
  gas_wanted: '0',
  gas_used: '0',
  events: [],
  codespace: '',
} as const;

/** `ResultTx`: the answer of `tx` and each entry of `tx_search`. */
export function txJson(record: NativeTxRecord): object {
  return {
    hash: upperHex(record.hash),
    height: record.height.toString(),
    index: record.index,
    tx_result: execTxResultJson(record),
    tx: base64.encode(record.tx),
  };
}

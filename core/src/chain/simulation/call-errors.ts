import { bytesToHex } from '@ethereumjs/util';
import { ExecutionRevertedError, InvalidInputError, type RpcError } from '../../errors/rpc-error.js';

const ERROR_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';

/** Solidity's panic codes, worded as geth's `abi.UnpackRevert` words them. */
const PANIC_REASONS: Readonly<Record<number, string>> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

/** The reason a revert carries: `Error(string)` text, or a panic code's meaning; undefined for other data. */
export function revertReason(data: Uint8Array): string | undefined {
  const hex = bytesToHex(data);
  const word = (index: number): bigint => BigInt(`0x${hex.slice(10 + index * 64, 10 + (index + 1) * 64) || '0'}`);
  if (hex.startsWith(ERROR_SELECTOR) && data.length >= 68) {
    const offset = Number(word(0));
    const length = Number(BigInt(`0x${hex.slice(10 + offset * 2, 10 + offset * 2 + 64)}`));
    const start = 4 + offset + 32;
    if (start + length > data.length) return undefined;
    return Buffer.from(data.subarray(start, start + length)).toString('utf8');
  }
  if (hex.startsWith(PANIC_SELECTOR) && data.length === 36) {
    const code = word(0);
    return PANIC_REASONS[Number(code)] ?? `unknown panic code: ${hex.slice(10).replace(/^0+(?=.)/, '0x')}`;
  }
  return undefined;
}

/**
 * The JSON-RPC error of a reverted call, as geth gives it: code 3 with the revert data, and the
 * reason in the message when there is one; -32000 `execution reverted` when the revert has no data.
 */
export function revertError(data: Uint8Array): RpcError {
  if (data.length === 0) return new InvalidInputError('execution reverted');
  return new ExecutionRevertedError(revertReason(data), bytesToHex(data));
}

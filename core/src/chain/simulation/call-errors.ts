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

/** geth's words for the EVM errors that ethereumjs words differently. */
const GETH_VM_ERRORS: Readonly<Record<string, string>> = {
  revert: 'execution reverted',
  'invalid JUMP': 'invalid jump destination',
  'code store out of gas': 'contract creation code storage out of gas',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  // Point evaluation (0x0a); geth adds its KZG library's reason after a colon.
  'kzg commitment does not match versioned hash': 'mismatched versioned hash',
  'kzg inputs invalid': 'error verifying kzg proof',
  'kzg proof invalid': 'error verifying kzg proof',
};

/** An ethereumjs EVM error (`exceptionError.error`) as geth words it. */
export function gethVmError(error: string): string {
  return error === '' ? '' : (GETH_VM_ERRORS[error] ?? error);
}

/** Milliseconds as Go prints a `time.Duration` (`500ms`, `1s`, `1.5s`, `1m0s`), for geth's timeout message. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

/**
 * A check before execution failed (fees, funds), in geth's words; each method wraps it as geth
 * does (`err: ... (supplied gas N)` for eth_call, `failed with N gas: ...` for estimates).
 */
export class PrecheckError extends Error {
  constructor(
    message: string,
    readonly gasLimit: bigint,
  ) {
    super(message);
  }
}

import { EVMError, type ExecResult, type PrecompileInput } from '@ethereumjs/evm';
import { hexToBytes } from '@ethereumjs/util';
import type { Hex } from 'viem';

/** A call a precompile refuses; the message is the revert reason, in the reference chain's words. */
export class PrecompileRevert extends Error {}

/**
 * viem, loaded on a precompile's first call: it takes about a third of a second to import, which
 * the node's start-up would otherwise pay.
 */
async function loadViem() {
  const viem = await import('viem');
  return {
    ...viem,
    /** Solidity's `Error(string)`: revert data that clients show as `execution reverted: <reason>`. */
    solidityError: viem.parseAbi(['error Error(string reason)']),
  };
}
export type Viem = Awaited<ReturnType<typeof loadViem>>;
let viemLoading: Promise<Viem> | undefined;

/**
 * Runs a precompile call that costs `gas`: out of gas when the call has less, otherwise what
 * `execute` returns, or a revert with `Error(reason)` when it throws a {@link PrecompileRevert}.
 */
export async function runPrecompile(
  input: PrecompileInput,
  gas: bigint,
  execute: (viem: Viem) => Promise<Hex>,
): Promise<ExecResult> {
  if (input.gasLimit < gas) {
    return {
      returnValue: new Uint8Array(0),
      executionGasUsed: input.gasLimit,
      exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
    };
  }
  const viem = await (viemLoading ??= loadViem());
  try {
    return { executionGasUsed: gas, returnValue: hexToBytes(await execute(viem)) };
  } catch (error) {
    if (!(error instanceof PrecompileRevert)) throw error;
    return {
      executionGasUsed: gas,
      returnValue: revertData(viem, error.message),
      exceptionError: new EVMError(EVMError.errorMessages.REVERT),
    };
  }
}

/** What a precompile that refuses for `reason` returns: Solidity's `Error(reason)`. */
export function revertData(viem: Viem, reason: string): Uint8Array {
  return hexToBytes(viem.encodeErrorResult({ abi: viem.solidityError, errorName: 'Error', args: [reason] }));
}

/** The revert reason of call data that names none of a precompile's functions. */
export function unknownFunctionReason(data: Hex): string {
  return data.length < 10 ? 'input too short to extract method ID' : `no method with id: ${data.slice(0, 10)}`;
}

/** Decoded call data, or a revert naming the precompile when it does not decode. */
export function decodeCalldata<T>(precompile: string, decode: () => T): T {
  try {
    return decode();
  } catch {
    throw new PrecompileRevert(`invalid calldata encoding for ${precompile}`);
  }
}

export function requireNoValue(value: bigint): void {
  if (value !== 0n) throw new PrecompileRevert('sending funds to a non-payable function');
}

export function requireNotStatic(isStatic: boolean, reason: string): void {
  if (isStatic) throw new PrecompileRevert(reason);
}

import { ErrorCode } from './codes.js';

const RPC_ERROR_BRAND = Symbol.for('evmnode.rpc-error');

/** The JSON-RPC `error` member. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * An error a handler throws to answer with a specific JSON-RPC error.
 * Recognised by its brand (see {@link isRpcError}), not by `instanceof`, so that errors from a
 * second copy of core loaded by a plugin are still mapped.
 */
export class RpcError extends Error {
  readonly [RPC_ERROR_BRAND] = true;

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toJSON(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export function isRpcError(value: unknown): value is RpcError {
  return typeof value === 'object' && value !== null && RPC_ERROR_BRAND in value;
}

export class ParseError extends RpcError {
  static readonly code = ErrorCode.ParseError;
  constructor(message = 'parse error') {
    super(ErrorCode.ParseError, message);
  }
}

export class InvalidRequestError extends RpcError {
  static readonly code = ErrorCode.InvalidRequest;
  constructor(message = 'invalid request') {
    super(ErrorCode.InvalidRequest, message);
  }
}

export class MethodNotFoundError extends RpcError {
  static readonly code = ErrorCode.MethodNotFound;
  /** geth's wording for every method that is not served. */
  static forMethod(method: string): MethodNotFoundError {
    // `this`, not the class by name: the bundler renames a class that names itself (`_MethodNotFoundError`).
    return new this(`the method ${method} does not exist/is not available`);
  }
  constructor(message: string, data?: unknown) {
    super(ErrorCode.MethodNotFound, message, data);
  }
}

export class InvalidParamsError extends RpcError {
  static readonly code = ErrorCode.InvalidParams;
  constructor(message: string) {
    super(ErrorCode.InvalidParams, message);
  }
}

export class InternalError extends RpcError {
  static readonly code = ErrorCode.Internal;
  constructor(message = 'internal error') {
    super(ErrorCode.Internal, message);
  }
}

export class InvalidInputError extends RpcError {
  static readonly code = ErrorCode.InvalidInput;
  constructor(message: string, data?: unknown) {
    super(ErrorCode.InvalidInput, message, data);
  }
}

export class ResourceNotFoundError extends RpcError {
  static readonly code = ErrorCode.ResourceNotFound;
  constructor(message: string) {
    super(ErrorCode.ResourceNotFound, message);
  }
}

export class ResourceUnavailableError extends RpcError {
  static readonly code = ErrorCode.ResourceUnavailable;
  constructor(message: string) {
    super(ErrorCode.ResourceUnavailable, message);
  }
}

/** `data` carries the native check code and its module, as decisions.md D3 requires. */
export interface TransactionRejectionData {
  code: number;
  codespace: string;
}

export class TransactionRejectedError extends RpcError {
  static readonly code = ErrorCode.TransactionRejected;
  constructor(message: string, data?: TransactionRejectionData) {
    super(ErrorCode.TransactionRejected, message, data);
  }
}

export class MethodNotSupportedError extends RpcError {
  static readonly code = ErrorCode.MethodNotSupported;
  constructor(message: string) {
    super(ErrorCode.MethodNotSupported, message);
  }
}

export class LimitExceededError extends RpcError {
  static readonly code = ErrorCode.LimitExceeded;
  constructor(message: string) {
    super(ErrorCode.LimitExceeded, message);
  }
}

export class VersionNotSupportedError extends RpcError {
  static readonly code = ErrorCode.VersionNotSupported;
  constructor(message: string) {
    super(ErrorCode.VersionNotSupported, message);
  }
}

export class CrossVmError extends RpcError {
  static readonly code = ErrorCode.CrossVm;
  constructor(message: string, details: string) {
    super(ErrorCode.CrossVm, message, { details });
  }
}

export class SyntheticTxError extends RpcError {
  static readonly code = ErrorCode.SyntheticTx;
  constructor(message: string) {
    super(ErrorCode.SyntheticTx, message);
  }
}

/** Code 3 with the revert data, so ethers and viem can decode the reason. */
export class ExecutionRevertedError extends RpcError {
  static readonly code = ErrorCode.ExecutionReverted;
  constructor(reason: string | undefined, revertData: string) {
    super(
      ErrorCode.ExecutionReverted,
      reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`,
      revertData,
    );
  }
}

/** Every error class, one per code; the unit test checks this list against {@link ErrorCode}. */
export const RPC_ERROR_CLASSES = [
  ParseError,
  InvalidRequestError,
  MethodNotFoundError,
  InvalidParamsError,
  InternalError,
  InvalidInputError,
  ResourceNotFoundError,
  ResourceUnavailableError,
  TransactionRejectedError,
  MethodNotSupportedError,
  LimitExceededError,
  VersionNotSupportedError,
  CrossVmError,
  SyntheticTxError,
  ExecutionRevertedError,
] as const;

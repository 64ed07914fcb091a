import { HELD_ANSWERS_BUSY, RequestJsonBusyError, UNFINISHED_REQUESTS_BUSY } from '@evmnode/core';

/**
 * A JSON-RPC error as CometBFT words it: a fixed message per code and the detail in `data`
 * (cosmjs shows the whole object, so clients see the detail).
 */
export class CometRpcError extends Error {
  override readonly name = 'CometRpcError';

  private constructor(
    readonly code: number,
    message: string,
    readonly data: string | undefined,
  ) {
    super(message);
  }

  static parseError(detail: string): CometRpcError {
    return new CometRpcError(-32700, 'Parse error', detail);
  }

  /** A body `parseRequestJson` refused: not JSON as CometBFT's decoder words it, or too many bodies waiting to be read. */
  static unreadable(error: unknown): CometRpcError {
    const { message } = error as Error;
    return error instanceof RequestJsonBusyError
      ? CometRpcError.internal(message)
      : CometRpcError.parseError(`error unmarshaling request: ${message}`);
  }

  static invalidRequest(detail: string): CometRpcError {
    return new CometRpcError(-32600, 'Invalid Request', detail);
  }

  static methodNotFound(): CometRpcError {
    return new CometRpcError(-32601, 'Method not found', undefined);
  }

  static invalidParams(detail: string): CometRpcError {
    return new CometRpcError(-32602, 'Invalid params', `error converting json params to arguments: ${detail}`);
  }

  /**
   * An element of a batch after the answers passed the response size cap (`[evm]
   * batch_response_max_size`); CometBFT has no such cap, so this is geth's error, as on the EVM ports.
   */
  static responseTooLarge(): CometRpcError {
    return new CometRpcError(-32003, 'response too large', undefined);
  }

  /** An element of a batch after the node had no more room for answers (`HeldAnswers`); a retry may find some. */
  static answersBusy(): CometRpcError {
    return CometRpcError.internal(HELD_ANSWERS_BUSY);
  }

  /** A body closed for room among the requests the node was receiving (`UnfinishedRequests`); a retry may find some. */
  static requestsBusy(): CometRpcError {
    return CometRpcError.internal(UNFINISHED_REQUESTS_BUSY);
  }

  /** What a method returned as an error: CometBFT answers every such error with -32603. */
  static internal(detail: string): CometRpcError {
    return new CometRpcError(-32603, 'Internal error', detail);
  }

  toJSON(): { code: number; message: string; data?: string } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** The HTTP status CometBFT sends with an error that is the whole response. */
  get httpStatus(): number {
    if (this.code === -32600) return 400;
    if (this.code === -32601) return 404;
    return 500;
  }
}

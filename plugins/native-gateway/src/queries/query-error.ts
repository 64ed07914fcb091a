/**
 * An ABCI query that failed, with the code and log a Cosmos SDK node answers (codespace `sdk`):
 * the SDK wraps a gRPC handler's error as `<error>: <description of the code>`.
 */
export class QueryError extends Error {
  override readonly name = 'QueryError';

  private constructor(
    readonly code: number,
    log: string,
  ) {
    super(log);
  }

  /** A handler's `status.Error(codes.InvalidArgument, desc)`. */
  static invalidArgument(description: string): QueryError {
    return new QueryError(18, `rpc error: code = InvalidArgument desc = ${description}: invalid request`);
  }

  /** A handler's `status.Error(codes.NotFound, desc)`: cosmjs reads it as "no such account". */
  static notFound(description: string): QueryError {
    return new QueryError(22, `rpc error: code = NotFound desc = ${description}: key not found`);
  }

  /** A handler's plain Go error (a request that does not decode, an address that does not parse). */
  static invalidRequest(detail: string): QueryError {
    return new QueryError(18, `${detail}: invalid request`);
  }

  static unknownPath(): QueryError {
    return new QueryError(6, 'unknown query path: unknown request');
  }

  static negativeHeight(): QueryError {
    return QueryError.invalidRequest('cannot query with height < 0; please provide a valid height');
  }

  /** The SDK's words for state it cannot load; the gateway reads the latest state only. */
  static pastHeight(height: number, latest: number): QueryError {
    return QueryError.invalidRequest(
      `failed to load state at height ${height}; the native gateway serves the latest state only (latest height: ${latest})`,
    );
  }

  static futureHeight(): QueryError {
    return new QueryError(26, 'cannot query with height in the future; please provide a valid height: invalid height');
  }
}

/** A gRPC query method served over `abci_query`: protobuf request bytes in, response bytes out. */
export interface QueryHandler {
  /** The gRPC method path, e.g. `/cosmos.bank.v1beta1.Query/Balance`. */
  readonly path: string;
  handle(request: Uint8Array): Promise<Uint8Array>;
}

/** Decodes a request as the SDK's gRPC router does: bytes that do not decode are an invalid request. */
export function decodeRequest<T>(type: { decode(input: Uint8Array): T }, data: Uint8Array): T {
  try {
    return type.decode(data);
  } catch (error) {
    throw QueryError.invalidRequest((error as Error).message);
  }
}

/** Whether an error is core's NativeAddressError (by name, so that a second copy of core is recognised too). */
export function isNativeAddressError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'NativeAddressError';
}

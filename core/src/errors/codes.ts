/**
 * Every JSON-RPC error code evmnode answers with: interface.md §7 and decisions.md D3.
 * Numbers are never reused for another meaning.
 */
export const ErrorCode = {
  // JSON-RPC 2.0 itself
  /** The body is not valid JSON. */
  ParseError: -32700,
  /** Valid JSON that is not a request object (or an empty or oversized batch). */
  InvalidRequest: -32600,
  /** Unknown method, namespace not served, plugin not loaded, or legacy method not enabled. */
  MethodNotFound: -32601,
  /** Parameters that do not decode, with geth's `invalid argument N: ...` wording. */
  InvalidParams: -32602,
  /** An unexpected failure; details stay in the node's log. */
  Internal: -32603,

  // EIP-1474 server errors (interface.md §7)
  /** Generic input error; also registered methods that are not supported and range/topic limits. */
  InvalidInput: -32000,
  ResourceNotFound: -32001,
  /** Exists but unavailable; also `request timed out`. */
  ResourceUnavailable: -32002,
  /** A transaction refused at admission; also `response too large` for batches. */
  TransactionRejected: -32003,
  MethodNotSupported: -32004,
  /** A transient refusal a retry can cure (busy limiters, rate limits, caps). */
  LimitExceeded: -32005,
  /** A `jsonrpc` member other than "2.0". */
  VersionNotSupported: -32006,

  // Chain-specific
  /** Failure of a cross-environment (EVM <-> native) operation; `data.details` is a string. */
  CrossVm: -32500,
  /** Failure while processing a synthetic transaction. */
  SyntheticTx: -32501,

  // EVM
  /** `execution reverted` with the revert data in `data` (geth). */
  ExecutionReverted: 3,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

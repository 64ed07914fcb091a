import { CometRpcError } from './rpc-error.js';

export type JsonRpcId = string | number | null;

export const INVALID_ID = Symbol('invalid id');

/**
 * A request's id: undefined for a notification (no id, or a null one: CometBFT's decoder reads both
 * as none), INVALID_ID for one that is not a string or number, null for a request that is no object.
 */
export function idOf(request: unknown): JsonRpcId | undefined | typeof INVALID_ID {
  if (!isRequestObject(request)) return null;
  const { id } = request as { id?: unknown };
  if (id === undefined || id === null) return undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : INVALID_ID;
}

/** Whether a request is a JSON object, the only form a request takes (an array in a batch is none). */
export function isRequestObject(request: unknown): request is object {
  return typeof request === 'object' && request !== null && !Array.isArray(request);
}

export function errorResponse(id: JsonRpcId, error: CometRpcError): object {
  return { jsonrpc: '2.0', id, error: error.toJSON() };
}

/** The answer to a request whose id is not a string or number. */
export const INVALID_ID_RESPONSE = errorResponse(null, CometRpcError.invalidRequest('id must be a string or a number'));

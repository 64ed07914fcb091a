import { CometRpcError } from './rpc-error.js';

export type JsonRpcId = string | number | null;

export const INVALID_ID = Symbol('invalid id');

/** A request's id: undefined for a notification, INVALID_ID for one that is not a string, number or null. */
export function idOf(request: unknown): JsonRpcId | undefined | typeof INVALID_ID {
  if (typeof request !== 'object' || request === null) return null;
  const { id } = request as { id?: unknown };
  if (id === undefined) return undefined;
  return typeof id === 'string' || typeof id === 'number' || id === null ? id : INVALID_ID;
}

export function errorResponse(id: JsonRpcId, error: CometRpcError): object {
  return { jsonrpc: '2.0', id, error: error.toJSON() };
}

/** The answer to a request whose id is not a string, number or null. */
export const INVALID_ID_RESPONSE = errorResponse(null, CometRpcError.invalidRequest('id must be a string or a number'));

import { randomBytes } from 'node:crypto';
import { codec, CodecError, jsonKind } from './codec.js';

/**
 * A new unguessable filter or subscription ID in geth's form: 16 random bytes as a hex quantity
 * (leading zeros trimmed), so that it also validates as the QUANTITY the specification says.
 */
export function newRpcId(): string {
  const digits = randomBytes(16).toString('hex').replace(/^0+/, '');
  return `0x${digits === '' ? '0' : digits}`;
}

/** A filter or subscription ID as a parameter (geth's `rpc.ID`): a string. */
export const rpcId = codec('rpc.ID', (value): string => {
  if (typeof value !== 'string') throw new CodecError(jsonKind(value), 'rpc.ID');
  return value;
});

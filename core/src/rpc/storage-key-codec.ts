import { codec } from './codec.js';
import { string } from './structural-codecs.js';
import { InvalidInputError } from '../errors/rpc-error.js';

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/**
 * A storage slot key read as geth's `decodeHash` reads it (eth_getStorageAt, eth_getProof): hex
 * of at most 32 bytes, `0x` optional, an odd digit count padded with a leading zero, then
 * left-padded to 32 bytes. geth decodes it in the handler, after the JSON arguments, so a bad key
 * is -32000 `unable to decode storage key: ...`, as geth up to 1.16 and the reference node word it
 * (newer geth answers -32602 `storage key too long (want at most 32 bytes): "<key>"`).
 */
export function decodeStorageKey(text: string): Uint8Array {
  let digits = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  if (digits.length % 2 !== 0) digits = `0${digits}`;
  if (!HEX_DIGITS.test(digits)) throw new InvalidInputError('unable to decode storage key: hex string invalid');
  if (digits.length > 64) {
    throw new InvalidInputError('unable to decode storage key: hex string too long, want at most 32 bytes');
  }
  return Buffer.from(digits.padStart(64, '0'), 'hex');
}

/**
 * A storage slot key parameter: a JSON string (geth's `string`, so another JSON type is -32602)
 * decoded by {@link decodeStorageKey} into 32 bytes.
 */
export const storageKey = codec('string', (value): Uint8Array => decodeStorageKey(string.decode(value)));

import { codec, CodecError, type RequiredCodec } from './codec.js';

// geth's hexutil error texts.
const EMPTY_STRING = 'empty hex string';
const SYNTAX = 'invalid hex string';
const MISSING_PREFIX = 'hex string without 0x prefix';
const ODD_LENGTH = 'hex string of odd length';
const EMPTY_NUMBER = 'hex string "0x"';
const LEADING_ZERO = 'hex number with leading zero digits';

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

function hasHexPrefix(text: string): boolean {
  return text.length >= 2 && text[0] === '0' && (text[1] === 'x' || text[1] === 'X');
}

/**
 * Checks a hex number's prefix and leading digit as hexutil's `checkNumber` does and returns the
 * digits, not yet checked for syntax (geth checks the range first). Errors carry no Go type.
 */
function hexNumberDigits(text: string): string {
  if (!hasHexPrefix(text)) throw new CodecError(MISSING_PREFIX);
  const digits = text.slice(2);
  if (digits.length === 0) throw new CodecError(EMPTY_NUMBER);
  if (digits.length > 1 && digits[0] === '0') throw new CodecError(LEADING_ZERO);
  return digits;
}

/** hexutil.DecodeUint64 (used by block numbers): errors unwrapped, an empty string refused. */
export function decodeUint64Text(text: string): bigint {
  if (text.length === 0) throw new CodecError(EMPTY_STRING);
  const digits = hexNumberDigits(text);
  if (!HEX_DIGITS.test(digits)) throw new CodecError(SYNTAX);
  const value = BigInt('0x' + digits);
  if (value > 0xffff_ffff_ffff_ffffn) throw new CodecError('hex number > 64 bits');
  return value;
}

/** hexutil.Big and hexutil.Uint64: an empty string is zero, and the range is checked before the digits. */
function quantityCodec(goType: string, maxBits: number): RequiredCodec<bigint> {
  const maxDigits = maxBits / 4;
  return codec(goType, (value) => {
    if (typeof value !== 'string') throw new CodecError('non-string', goType);
    if (value.length === 0) return 0n;
    let digits: string;
    try {
      digits = hexNumberDigits(value);
    } catch (error) {
      throw new CodecError((error as CodecError).reason, goType);
    }
    if (digits.length > maxDigits) throw new CodecError(`hex number > ${maxBits} bits`, goType);
    if (!HEX_DIGITS.test(digits)) throw new CodecError(SYNTAX, goType);
    return BigInt('0x' + digits);
  });
}

/** A 256-bit QUANTITY (geth's `*hexutil.Big`), as a bigint. */
export const quantity = quantityCodec('*hexutil.Big', 256);

/** A 64-bit QUANTITY (geth's `hexutil.Uint64`), as a bigint. */
export const uint64 = quantityCodec('hexutil.Uint64', 64);

/** Checks 0x-prefixed hex text as hexutil's `checkText` does and returns the digits, syntax unchecked. */
function hexBytesDigits(text: string, goType: string): string {
  if (text.length === 0) return '';
  if (!hasHexPrefix(text)) throw new CodecError(MISSING_PREFIX, goType);
  const digits = text.slice(2);
  if (digits.length % 2 !== 0) throw new CodecError(ODD_LENGTH, goType);
  return digits;
}

function checkSyntax(digits: string, goType: string): string {
  if (!HEX_DIGITS.test(digits)) throw new CodecError(SYNTAX, goType);
  return digits;
}

/**
 * Hex digits decoded at a time. Node decodes a string's hex through a UTF-16 copy of the whole
 * string: for the 5.2 million digits of a 2.6 MB call, 40 ms of the node's thread in fresh memory,
 * against 10 ms in pieces of this size, whose copies reuse the same memory.
 */
const HEX_PIECE_DIGITS = 64 * 1024;

/** The bytes of even-length, checked hex `digits`. */
function bytesOfHex(digits: string): Buffer {
  if (digits.length <= HEX_PIECE_DIGITS) return Buffer.from(digits, 'hex');
  const bytes = Buffer.allocUnsafe(digits.length / 2);
  for (let start = 0; start < digits.length; start += HEX_PIECE_DIGITS) {
    bytes.write(digits.substring(start, start + HEX_PIECE_DIGITS), start / 2, 'hex');
  }
  return bytes;
}

/** DATA of any length (geth's `hexutil.Bytes`), as bytes. An empty string is empty data, as in geth. */
export const data = codec('hexutil.Bytes', (value): Uint8Array => {
  if (typeof value !== 'string') throw new CodecError('non-string', 'hexutil.Bytes');
  return bytesOfHex(checkSyntax(hexBytesDigits(value, 'hexutil.Bytes'), 'hexutil.Bytes'));
});

function fixedHexCodec(goType: string, byteLength: number): RequiredCodec<`0x${string}`> {
  return codec(goType, (value): `0x${string}` => {
    if (typeof value !== 'string') throw new CodecError('non-string', goType);
    const digits = hexBytesDigits(value, goType);
    if (digits.length !== byteLength * 2) {
      throw new CodecError(`hex string has length ${digits.length}, want ${byteLength * 2} for ${goType}`);
    }
    checkSyntax(digits, goType);
    return `0x${digits.toLowerCase()}` as const;
  });
}

/** DATA, 20 bytes (geth's `common.Address`), as lower-case 0x hex. */
export const address = fixedHexCodec('common.Address', 20);

/** DATA, 32 bytes (geth's `common.Hash`), as lower-case 0x hex. */
export const hash = fixedHexCodec('common.Hash', 32);

/** A number as a QUANTITY: 0x-prefixed hex without leading zeros. */
export function toQuantity(value: bigint | number): `0x${string}` {
  return `0x${value.toString(16)}`;
}

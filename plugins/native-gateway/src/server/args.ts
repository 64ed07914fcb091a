import { base64, hex } from '@scure/base';

/** A value that is not what the argument takes; the method's decoder names the argument. */
export class ArgError extends Error {
  override readonly name = 'ArgError';
}

/**
 * How one argument of a gateway method is read, in CometBFT's two forms: a JSON-RPC params value,
 * or a GET query-string value (`?hash=0x...&prove=false`, strings in double quotes).
 */
export interface Arg<T> {
  readonly fromJson: (value: unknown) => T;
  readonly fromUri: (text: string) => T;
  /** The value of an absent argument; without it the argument is required. */
  readonly absent?: () => T;
}

/** An argument that may be left out (or sent as null), read as `fallback` then. */
export function optional<T, D>(arg: Arg<T>, fallback: D): Arg<T | D> {
  return { ...arg, absent: () => fallback };
}

function jsonString(value: unknown): string {
  if (typeof value !== 'string') throw new ArgError(`expected a string, got ${JSON.stringify(value)}`);
  return value;
}

/** A quoted URI value is a string; CometBFT also takes it unquoted. */
function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

function decodeHex(text: string): Uint8Array {
  try {
    return hex.decode(text.toLowerCase());
  } catch {
    throw new ArgError(`invalid hex string ${JSON.stringify(text)}`);
  }
}

function decodeBase64(text: string): Uint8Array {
  try {
    return base64.decode(text);
  } catch {
    throw new ArgError(`illegal base64 data ${JSON.stringify(text)}`);
  }
}

/** URI bytes: `0x` then hex, or a quoted string's UTF-8 bytes. */
function uriBytes(text: string): Uint8Array {
  if (text.startsWith('0x') || text.startsWith('0X')) return decodeHex(text.slice(2));
  return new TextEncoder().encode(unquote(text));
}

/** Go `[]byte`: base64 in JSON. */
export const bytesArg: Arg<Uint8Array> = {
  fromJson: (value) => decodeBase64(jsonString(value)),
  fromUri: uriBytes,
};

/** CometBFT `HexBytes`: hex in JSON. */
export const hexBytesArg: Arg<Uint8Array> = {
  fromJson: (value) => decodeHex(jsonString(value)),
  fromUri: uriBytes,
};

const HASH_HEX = /^(0[xX])?[0-9a-fA-F]{64}$/;

/**
 * A transaction hash: base64 as CometBFT's JSON form, or the 64 hex digits native tooling shows
 * (upper-case, as `ext_getNativeTx` returns it), with or without `0x`. 64 hex digits are never
 * 32 bytes of base64, so the forms cannot be confused.
 */
export const txHashArg: Arg<Uint8Array> = {
  fromJson: (value) => {
    const text = jsonString(value);
    return HASH_HEX.test(text) ? decodeHex(text.replace(/^0[xX]/, '')) : decodeBase64(text);
  },
  fromUri: (text) => {
    const unquoted = unquote(text);
    return HASH_HEX.test(unquoted) ? decodeHex(unquoted.replace(/^0[xX]/, '')) : uriBytes(text);
  },
};

export const stringArg: Arg<string> = { fromJson: jsonString, fromUri: unquote };

function integer(text: string): number {
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new ArgError(`expected an integer, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/** Go `int`/`int64`: a JSON number or a decimal string (CometBFT's own JSON writes int64 as strings). */
export const intArg: Arg<number> = {
  fromJson: (value) => (typeof value === 'number' ? integer(String(value)) : integer(jsonString(value))),
  fromUri: (text) => integer(unquote(text)),
};

export const boolArg: Arg<boolean> = {
  fromJson: (value) => {
    if (typeof value !== 'boolean') throw new ArgError(`expected a boolean, got ${JSON.stringify(value)}`);
    return value;
  },
  fromUri: (text) => {
    if (text !== 'true' && text !== 'false') throw new ArgError(`expected true or false, got ${JSON.stringify(text)}`);
    return text === 'true';
  },
};

/**
 * A parameter codec parses one JSON value and converts it in one step, throwing
 * {@link CodecError} with geth's wording when it cannot.
 */
export interface ParamCodec<T> {
  /** The Go type geth decodes this parameter into; it appears in geth's error messages. */
  readonly goType: string;
  /** Whether the parameter may be omitted (or null); trailing optional parameters may be left out. */
  readonly isOptional: boolean;
  decode(value: unknown): T;
}

/** A required codec that can also be made optional. */
export interface RequiredCodec<T> extends ParamCodec<T> {
  readonly isOptional: false;
  /** The same codec, optional: an omitted or null value becomes `fallback`. */
  optional(): ParamCodec<T | undefined>;
  optional(fallback: T): ParamCodec<T>;
}

const CODEC_ERROR_BRAND = Symbol.for('evmnode.codec-error');

/** Recognises a {@link CodecError} by its brand, whichever copy of core threw it. */
export function isCodecError(value: unknown): value is CodecError {
  return typeof value === 'object' && value !== null && CODEC_ERROR_BRAND in value;
}

/**
 * A decoding failure. With `goType` it renders as Go's `json: cannot unmarshal <reason> into Go
 * value of type <goType>`, the way geth reports hexutil and type mismatches.
 */
export class CodecError extends Error {
  readonly [CODEC_ERROR_BRAND] = true;

  constructor(
    readonly reason: string,
    readonly goType?: string,
  ) {
    super(goType === undefined ? reason : `json: cannot unmarshal ${reason} into Go value of type ${goType}`);
  }

  /** Go's wording for a failure inside a struct field. */
  inField(structName: string, field: string): string {
    return this.goType === undefined
      ? this.message
      : `json: cannot unmarshal ${this.reason} into Go struct field ${structName}.${field} of type ${this.goType}`;
  }
}

/** Go's name for the JSON kind of a value, as `encoding/json` reports it. */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

/** Builds a required codec with an `optional()` variant. */
export function codec<T>(goType: string, decode: (value: unknown) => T): RequiredCodec<T> {
  function optional(): ParamCodec<T | undefined>;
  function optional(fallback: T): ParamCodec<T>;
  function optional(fallback?: T): ParamCodec<T | undefined> {
    return {
      goType,
      isOptional: true,
      decode: (value) => (value === undefined || value === null ? fallback : decode(value)),
    };
  }
  return { goType, isOptional: false, decode, optional };
}

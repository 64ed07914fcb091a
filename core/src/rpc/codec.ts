import type { Turns } from './event-loop-turns.js';

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
  /**
   * Decodes as {@link decode} does, giving other work turns of the node's thread on the way (see
   * {@link collectionCodec}); answers at once, not with a promise, unless it waited for a turn.
   */
  decodeInTurns?(value: unknown, turns: Turns): T | Promise<T>;
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

/** Builds a required codec with an `optional()` variant; `decodeInTurns` as {@link ParamCodec} says. */
export function codec<T>(
  goType: string,
  decode: (value: unknown) => T,
  decodeInTurns?: (value: unknown, turns: Turns) => T | Promise<T>,
): RequiredCodec<T> {
  function optional(): ParamCodec<T | undefined>;
  function optional(fallback: T): ParamCodec<T>;
  function optional(fallback?: T): ParamCodec<T | undefined> {
    const absent = (value: unknown): boolean => value === undefined || value === null;
    return {
      goType,
      isOptional: true,
      decode: (value) => (absent(value) ? fallback : decode(value)),
      ...(decodeInTurns && {
        decodeInTurns: (value, turns) => (absent(value) ? fallback : decodeInTurns(value, turns)),
      }),
    };
  }
  return { goType, isOptional: false, decode, ...(decodeInTurns && { decodeInTurns }), optional };
}

/** Turns that never end: decoding with them never waits. */
export const NO_TURNS: Turns = { pause: () => undefined };

/**
 * A codec of a collection (an array, a map, an object holding one): one value may hold tens of
 * thousands of entries, which took 25–60 ms of the node's thread in one piece (16,000 state
 * overrides). `decodeInTurns` decodes them, pausing between them ({@link eachInTurns}) when given
 * turns; without, it serves as `decode`. The dispatcher decodes an argument in turns.
 */
export function collectionCodec<T>(
  goType: string,
  decodeInTurns: (value: unknown, turns: Turns) => T | Promise<T>,
): RequiredCodec<T> {
  return codec(goType, (value) => decodeInTurns(value, NO_TURNS) as T, decodeInTurns);
}

/**
 * Runs `step` for each index from `from` to `count - 1`, in order, waiting for those that answer
 * with a promise, and for the next turn whenever the current one has had its time. Runs at once,
 * returning undefined, until it has something to wait for; then returns the promise of the rest.
 * A step's failure is thrown, or rejects that promise.
 */
export function eachInTurns(
  count: number,
  step: (index: number) => void | Promise<void>,
  turns: Turns,
  from = 0,
): void | Promise<void> {
  for (let index = from; index < count; index++) {
    const pause = turns.pause();
    const stepped = pause === undefined ? step(index) : pause.then(() => step(index));
    if (stepped !== undefined) return stepped.then(() => eachInTurns(count, step, turns, index + 1));
  }
  return undefined;
}

/**
 * Decodes `value` with `codec`, in turns when it takes them, and hands it to `set` with `index`, at
 * once or once it is there. Its failure, thrown or rejected, becomes `failure(index, error)`.
 * `set` and `failure` are made once per collection, not per member.
 */
export function decodeInto<T>(
  codec: ParamCodec<T>,
  value: unknown,
  turns: Turns,
  index: number,
  set: (index: number, decoded: T) => void,
  failure: (index: number, error: unknown) => unknown = asItIs,
): void | Promise<void> {
  let decoded: T | Promise<T>;
  try {
    decoded = codec.decodeInTurns === undefined ? codec.decode(value) : codec.decodeInTurns(value, turns);
  } catch (error) {
    throw failure(index, error);
  }
  if (!(decoded instanceof Promise)) return set(index, decoded);
  return decoded.then(
    (resolved) => set(index, resolved),
    (error: unknown) => {
      throw failure(index, error);
    },
  );
}

function asItIs(_index: number, error: unknown): unknown {
  return error;
}

/** `then` of what may not be a promise: at once when it is not. */
export function whenDecoded<T, R>(value: T | Promise<T>, then: (decoded: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}

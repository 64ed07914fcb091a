import { decodeInto, eachInTurns, isCodecError, NO_TURNS, whenDecoded, type ParamCodec } from './codec.js';
import type { Turns } from './event-loop-turns.js';
import { InvalidParamsError } from '../errors/rpc-error.js';

const NO_PARAMS: readonly unknown[] = [];

/** A request's `params` member as the list of arguments, with geth's error for one not a list. */
function argumentsOf(params: unknown): readonly unknown[] {
  // geth accepts an absent or null `params` as no arguments.
  const args = params === undefined || params === null ? NO_PARAMS : params;
  if (!Array.isArray(args)) throw new InvalidParamsError('non-array args');
  return args;
}

/** The codec of argument `index`, with geth's errors for one too many or a required one missing. */
function codecOf(codecs: readonly ParamCodec<unknown>[], args: readonly unknown[], index: number) {
  const codec = codecs[index];
  if (codec === undefined) throw new InvalidParamsError(`too many arguments, want at most ${codecs.length}`);
  if (args[index] === undefined && !codec.isOptional) {
    throw new InvalidParamsError(`missing value for required argument ${index}`);
  }
  return codec;
}

function invalidArgument(index: number, error: unknown): unknown {
  return isCodecError(error) ? new InvalidParamsError(`invalid argument ${index}: ${error.message}`) : error;
}

/**
 * Decodes a request's `params` member against a method's codecs, in order, with geth's messages:
 * `non-array args`, `too many arguments, want at most N`, `missing value for required argument N`,
 * `invalid argument N: ...`. With `turns`, a collection's argument (which may hold tens of
 * thousands of entries) is decoded in turns: the answer is then a promise if it had to wait.
 */
export function decodeParams(codecs: readonly ParamCodec<unknown>[], params: unknown): unknown[];
export function decodeParams(
  codecs: readonly ParamCodec<unknown>[],
  params: unknown,
  turns: Turns,
): unknown[] | Promise<unknown[]>;
export function decodeParams(
  codecs: readonly ParamCodec<unknown>[],
  params: unknown,
  turns: Turns = NO_TURNS,
): unknown[] | Promise<unknown[]> {
  const args = argumentsOf(params);
  const decoded = new Array<unknown>(codecs.length);
  const set = (index: number, value: unknown): void => void (decoded[index] = value);
  const step = (index: number): void | Promise<void> =>
    decodeInto(codecOf(codecs, args, index), args[index], turns, index, set, invalidArgument);
  return whenDecoded(eachInTurns(Math.max(codecs.length, args.length), step, NO_TURNS), () => decoded);
}

import { isCodecError, type ParamCodec } from './codec.js';
import { InvalidParamsError } from '../errors/rpc-error.js';

const NO_PARAMS: readonly unknown[] = [];

/**
 * Decodes a request's `params` member against a method's codecs, with geth's messages:
 * `non-array args`, `too many arguments, want at most N`, `missing value for required argument N`,
 * `invalid argument N: ...`.
 */
export function decodeParams(codecs: readonly ParamCodec<unknown>[], params: unknown): unknown[] {
  // geth accepts an absent or null `params` as no arguments.
  const args = params === undefined || params === null ? NO_PARAMS : params;
  if (!Array.isArray(args)) throw new InvalidParamsError('non-array args');
  const decoded = new Array<unknown>(codecs.length);
  for (let index = 0; index < codecs.length || index < args.length; index++) {
    const codec = codecs[index];
    if (codec === undefined) throw new InvalidParamsError(`too many arguments, want at most ${codecs.length}`);
    const value: unknown = args[index];
    if (value === undefined && !codec.isOptional) {
      throw new InvalidParamsError(`missing value for required argument ${index}`);
    }
    try {
      decoded[index] = codec.decode(value);
    } catch (error) {
      if (isCodecError(error)) throw new InvalidParamsError(`invalid argument ${index}: ${error.message}`);
      throw error;
    }
  }
  return decoded;
}

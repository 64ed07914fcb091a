import { codec, CodecError, jsonKind } from './codec.js';
import { decodeUint64Text, hash } from './hex-codecs.js';
import { InvalidInputError } from '../errors/rpc-error.js';

/** Block tags; `latest`, `safe`, `finalized` and `pending` all mean the last committed block here. */
export type BlockTag = 'earliest' | 'latest' | 'pending' | 'safe' | 'finalized';

/** A block number or a tag, as `BLOCKNUMBER` parameters carry it. */
export type BlockNumberOrTag = BlockTag | bigint;

/** A block by number, tag or hash, as `BLOCKNUMBER or DATA` parameters (and EIP-1898 objects) carry it. */
export type BlockRef =
  | { readonly kind: 'tag'; readonly tag: BlockTag }
  | { readonly kind: 'number'; readonly number: bigint }
  | { readonly kind: 'hash'; readonly hash: `0x${string}`; readonly requireCanonical: boolean };

const TAGS: ReadonlySet<string> = new Set<BlockTag>(['earliest', 'latest', 'pending', 'safe', 'finalized']);
const MAX_INT64 = 0x7fff_ffff_ffff_ffffn;

function isTag(text: string): text is BlockTag {
  return TAGS.has(text);
}

/** geth's `rpc.BlockNumber.UnmarshalJSON`: quotes are optional, errors are not wrapped. */
function decodeBlockNumberOrTag(value: unknown): BlockNumberOrTag {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (isTag(text)) return text;
  const number = decodeUint64Text(text);
  if (number > MAX_INT64) throw new CodecError('block number larger than int64');
  return number;
}

/** BLOCKNUMBER: a hex number or one of the five tags. */
export const blockNumberOrTag = codec('rpc.BlockNumber', decodeBlockNumberOrTag);

/** Converts a number-or-tag into the common block reference form. */
export function blockRefOf(value: BlockNumberOrTag): BlockRef {
  return typeof value === 'bigint' ? { kind: 'number', number: value } : { kind: 'tag', tag: value };
}

function decodeEip1898(object: Record<string, unknown>): BlockRef {
  const { blockNumber, blockHash, requireCanonical } = object;
  // geth decodes the object into a struct first and, when that fails, reports the string fallback's error.
  const notAString = () => new CodecError('object', 'string');
  if (requireCanonical !== undefined && requireCanonical !== null && typeof requireCanonical !== 'boolean') {
    throw notAString();
  }
  let number: BlockNumberOrTag | undefined;
  let blockHashHex: `0x${string}` | undefined;
  try {
    if (blockNumber !== undefined && blockNumber !== null) number = decodeBlockNumberOrTag(blockNumber);
    if (blockHash !== undefined && blockHash !== null) blockHashHex = hash.decode(blockHash);
  } catch {
    throw notAString();
  }
  if (number !== undefined && blockHashHex !== undefined) {
    throw new CodecError('cannot specify both BlockHash and BlockNumber, choose one or the other');
  }
  if (number !== undefined) return blockRefOf(number);
  if (blockHashHex !== undefined)
    return { kind: 'hash', hash: blockHashHex, requireCanonical: requireCanonical === true };
  // geth accepts the object and fails when it resolves it, with -32000.
  throw new InvalidInputError('invalid arguments; neither block nor hash specified');
}

/** geth's `rpc.BlockNumberOrHash.UnmarshalJSON`. */
function decodeBlockRef(value: unknown): BlockRef {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return decodeEip1898(value as Record<string, unknown>);
  }
  if (value === null) throw new InvalidInputError('invalid arguments; neither block nor hash specified');
  if (typeof value !== 'string') throw new CodecError(jsonKind(value), 'string');
  if (isTag(value)) return { kind: 'tag', tag: value };
  if (value.length === 66) {
    try {
      return { kind: 'hash', hash: hash.decode(value), requireCanonical: false };
    } catch (error) {
      throw new CodecError((error as CodecError).reason);
    }
  }
  const number = decodeUint64Text(value);
  if (number > MAX_INT64) throw new CodecError('blocknumber too high');
  return { kind: 'number', number };
}

/** BLOCKNUMBER or DATA: a number, a tag, a 32-byte block hash, or an EIP-1898 object. */
export const blockRef = codec('rpc.BlockNumberOrHash', decodeBlockRef);

/** The default block of reads: the last committed one. */
export const LATEST_BLOCK: BlockRef = { kind: 'tag', tag: 'latest' };

/** The reference to a block by its hash alone. */
export function blockRefOfHash(blockHash: `0x${string}`): BlockRef {
  return { kind: 'hash', hash: blockHash, requireCanonical: false };
}

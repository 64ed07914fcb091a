import type { PrefixedHexString } from '@ethereumjs/util';
import { blockNumberOrTag } from './block-codecs.js';
import { codec, CodecError } from './codec.js';
import { hash } from './hex-codecs.js';
import { arrayOf, objectOf } from './structural-codecs.js';
import { InvalidInputError } from '../errors/rpc-error.js';
import { MAX_ALTERNATIVES, MAX_TOPIC_POSITIONS, type LogCriteria } from '../logs/log-criteria.js';

/** Any JSON value (Go's `interface {}`), checked afterwards. */
const anyValue = codec('interface {}', (value): unknown => value);

/** What geth decodes a criteria object into before checking it. */
const rawCriteria = objectOf('input', {
  blockHash: hash.optional(),
  fromBlock: blockNumberOrTag.optional(),
  toBlock: blockNumberOrTag.optional(),
  address: anyValue.optional(),
  topics: arrayOf(anyValue).optional(),
});

/** hexutil.Decode: 0x-prefixed, even-length hex, of `length` bytes, as lower-case hex. */
function decodeFixedHex(text: string, length: number, what: string): PrefixedHexString {
  if (text.length === 0) throw new CodecError('empty hex string');
  if (!/^0[xX]/.test(text)) throw new CodecError('hex string without 0x prefix');
  const digits = text.slice(2);
  if (digits.length % 2 !== 0) throw new CodecError('hex string of odd length');
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new CodecError('invalid hex string');
  if (digits.length !== length * 2) {
    throw new CodecError(`hex has invalid length ${digits.length / 2} after decoding; expected ${length} for ${what}`);
  }
  return `0x${digits.toLowerCase()}`;
}

function decodeAddresses(value: unknown): PrefixedHexString[] | undefined {
  if (value === undefined || value === null) return undefined;
  const withContext = (decode: () => PrefixedHexString, context: string) => {
    try {
      return decode();
    } catch (error) {
      throw new CodecError(`${context}: ${(error as CodecError).reason}`);
    }
  };
  if (typeof value === 'string') return [withContext(() => decodeFixedHex(value, 20, 'address'), 'invalid address')];
  if (!Array.isArray(value)) throw new CodecError('invalid addresses in query');
  if (value.length > MAX_ALTERNATIVES) throw new InvalidInputError('exceed max addresses');
  const addresses = value.map((element: unknown, index) => {
    if (typeof element !== 'string') throw new CodecError(`non-string address at index ${index}`);
    return withContext(() => decodeFixedHex(element, 20, 'address'), `invalid address at index ${index}`);
  });
  // An empty list constrains nothing, as in geth.
  return addresses.length === 0 ? undefined : addresses;
}

/** One topic position: null (any), a topic, or a list of alternatives (a null among them: any). */
function decodeTopicPosition(value: unknown): PrefixedHexString[] | null {
  if (value === null) return null;
  if (typeof value === 'string') return [decodeFixedHex(value, 32, 'topic')];
  if (!Array.isArray(value)) throw new CodecError('invalid topic(s)');
  // An empty list constrains nothing, as in geth.
  if (value.length === 0) return null;
  if (value.length > MAX_ALTERNATIVES) throw new InvalidInputError('exceed max topics');
  const alternatives: PrefixedHexString[] = [];
  for (const element of value as unknown[]) {
    if (element === null) return null;
    if (typeof element !== 'string') throw new CodecError('invalid topic(s)');
    alternatives.push(decodeFixedHex(element, 32, 'topic'));
  }
  return alternatives;
}

/**
 * A log filter criteria object (interface.md §2.4), checked as geth's `FilterCriteria` is. Too
 * many topic positions is -32000 `exceed max topics` (decisions.md D3: limits are -32000).
 */
export const logCriteria = codec('filters.FilterCriteria', (value): LogCriteria => {
  const raw = rawCriteria.decode(value);
  if (raw.blockHash !== undefined && (raw.fromBlock !== undefined || raw.toBlock !== undefined)) {
    throw new CodecError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
  }
  const addresses = decodeAddresses(raw.address);
  const topics = raw.topics ?? [];
  if (topics.length > MAX_TOPIC_POSITIONS) throw new InvalidInputError('exceed max topics');
  return {
    ...(raw.blockHash === undefined ? {} : { blockHash: raw.blockHash }),
    ...(raw.fromBlock === undefined ? {} : { fromBlock: raw.fromBlock }),
    ...(raw.toBlock === undefined ? {} : { toBlock: raw.toBlock }),
    ...(addresses === undefined ? {} : { addresses }),
    topics: topics.map(decodeTopicPosition),
  };
});

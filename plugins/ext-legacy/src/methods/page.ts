import { codec, CodecError, jsonKind, objectOf, type RequiredCodec } from '@evmnode/core';

/** Page sizes of the paginated legacy queries: a bounded page keeps each call's reads bounded. */
export const PAGE_LIMIT = { default: 100, max: 1000 } as const;

/** A page size: a JSON integer from 1 to {@link PAGE_LIMIT}.max. */
export const pageLimit = codec('int', (value) => {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new CodecError(jsonKind(value), 'int');
  if (value < 1 || value > PAGE_LIMIT.max) {
    throw new CodecError(`limit ${value} is out of range: it must be from 1 to ${PAGE_LIMIT.max}`);
  }
  return value;
});

/** A `{limit, cursor}` parameter: `cursor` is where the page starts, as the previous page's `nextCursor` said. */
export function pageRequest<C>(cursor: RequiredCodec<C>) {
  return objectOf('PageRequest', { limit: pageLimit.optional(PAGE_LIMIT.default), cursor: cursor.optional() });
}

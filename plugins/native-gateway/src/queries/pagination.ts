import type { PageRequest, PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';

/** The Cosmos SDK's page size when a request names none. */
const DEFAULT_LIMIT = 100n;

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/**
 * One page of store entries, as the Cosmos SDK's `query.Paginate` pages a prefix store: by `key`
 * (from that store key on) or by `offset`, in key order or `reverse`; no `limit` means 100 and
 * counting the total. `keyOf` gives each item's store key; items come sorted by it.
 */
export function paginate<T>(
  items: readonly T[],
  keyOf: (item: T) => Uint8Array,
  request: PageRequest | undefined,
): { readonly page: readonly T[]; readonly pagination: PageResponse } {
  const { key = new Uint8Array(), offset = 0n, limit = 0n, countTotal = false, reverse = false } = request ?? {};
  if (offset > 0n && key.length > 0) throw new Error('invalid request, either offset or key is expected, got both');
  const size = Number(limit === 0n ? DEFAULT_LIMIT : limit);
  const ordered = reverse ? [...items].reverse() : items;
  const empty = new Uint8Array();
  if (key.length > 0) {
    const from = ordered.findIndex((item) => compareBytes(keyOf(item), key) * (reverse ? -1 : 1) >= 0);
    const rest = from === -1 ? [] : ordered.slice(from);
    const next = rest[size];
    return {
      page: rest.slice(0, size),
      pagination: { nextKey: next === undefined ? empty : keyOf(next), total: 0n },
    };
  }
  const start = Number(offset);
  const next = ordered[start + size];
  return {
    page: ordered.slice(start, start + size),
    pagination: {
      nextKey: next === undefined ? empty : keyOf(next),
      total: limit === 0n || countTotal ? BigInt(ordered.length) : 0n,
    },
  };
}

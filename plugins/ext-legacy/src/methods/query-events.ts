import { hexToBytes } from '@ethereumjs/util';
import {
  address,
  blockNumberOrTag,
  castNativeAddress,
  codec,
  CodecError,
  defineMethod,
  EventLoopTurns,
  jsonKind,
  objectOf,
  string,
  type ChainReader,
  type LogQuery,
  type NativeLayer,
} from '@evmnode/core';
import { PAGE_LIMIT, pageLimit } from './page.js';

/** The `type` that selects EVM logs; any other type selects native events of that type. */
const EVM_LOG_TYPE = 'evm_log';

/** Where a page starts: a block and the position of an event among that block's events. */
export interface EventCursor {
  readonly height: number;
  readonly position: number;
}

const cursorText = ({ height, position }: EventCursor) => `${height}:${position}`;
const eventCursor = codec<EventCursor>('string', (value) => {
  if (typeof value !== 'string') throw new CodecError(jsonKind(value), 'string');
  const parsed = /^(\d{1,15}):(\d{1,9})$/.exec(value);
  if (parsed === null) throw new CodecError(`invalid cursor ${JSON.stringify(value)}`);
  return { height: Number(parsed[1]), position: Number(parsed[2]) };
});

const eventQuery = objectOf('EventQuery', {
  type: string.optional(),
  address: address.optional(),
  fromBlock: blockNumberOrTag.optional(),
  toBlock: blockNumberOrTag.optional(),
  limit: pageLimit.optional(PAGE_LIMIT.default),
  cursor: eventCursor.optional(),
});

/**
 * `ext_queryEvents({type?, address?, fromBlock, toBlock, limit, cursor})`: a block's native
 * events (its native transactions run first) then its EVM logs (the `ext` view, synthetic ones
 * included), block by block, with the log methods' range checks. Blocks are read in turns of the
 * event loop: a range of 2,000 blocks whose reads resolve at once held it for over 100 ms.
 */
export function queryEventsMethod(chain: ChainReader, native: NativeLayer, logs: LogQuery) {
  /** Every event of block `height` the query selects, in order. */
  async function eventsOf(height: number, type: string | undefined, holder: `0x${string}` | undefined) {
    const events: Record<string, unknown>[] = [];
    const block = (await chain.blockAt(height))!;
    // Read from the block's state, and only for a block with native events to select from.
    const nativeHolder =
      holder === undefined || type === EVM_LOG_TYPE || block.nativeTransactions.length === 0
        ? undefined
        : await nativeNameOf(holder, height);
    if (type !== EVM_LOG_TYPE) {
      for (const hash of block.nativeTransactions) {
        const record = await native.txByHash(hexToBytes(hash));
        for (const [eventIndex, event] of (record?.events ?? []).entries()) {
          if (type !== undefined && event.type !== type) continue;
          if (nativeHolder !== undefined && !event.attributes.some(({ value }) => value === nativeHolder)) continue;
          events.push({
            kind: 'native',
            type: event.type,
            attributes: event.attributes,
            transactionHash: hash,
            eventIndex,
            blockNumber: `0x${height.toString(16)}`,
          });
        }
      }
    }
    if (type === undefined || type === EVM_LOG_TYPE) {
      const match = { topics: [], ...(holder === undefined ? {} : { addresses: [holder] }) };
      const found = await logs.find(match, height, height, Number.MAX_SAFE_INTEGER, undefined, 'ext');
      for (const log of found) {
        events.push({ kind: 'evm', type: EVM_LOG_TYPE, ...(JSON.parse(new TextDecoder().decode(log.json)) as object) });
      }
    }
    return events;
  }

  /** The bech32 name native events give the account `holder`: its associated address, else its cast. */
  async function nativeNameOf(holder: `0x${string}`, height: number) {
    return (await chain.nativeAddressOf(holder, height)) ?? castNativeAddress(hexToBytes(holder));
  }

  return defineMethod({
    name: 'ext_queryEvents',
    params: [eventQuery],
    handler: async ([query], request) => {
      const range = await logs.range({
        topics: [],
        ...(query.fromBlock === undefined ? {} : { fromBlock: query.fromBlock }),
        ...(query.toBlock === undefined ? {} : { toBlock: query.toBlock }),
      });
      const page: Record<string, unknown>[] = [];
      let next: EventCursor | undefined;
      if (range !== undefined) {
        const turns = new EventLoopTurns(undefined, request.clientId);
        const start = Math.max(range.from, query.cursor?.height ?? range.from);
        for (let height = start; height <= range.to && next === undefined; height++) {
          const turn = turns.pause();
          if (turn !== undefined) await turn;
          const events = await eventsOf(height, query.type, query.address);
          const first = query.cursor?.height === height ? query.cursor.position : 0;
          for (let position = first; position < events.length; position++) {
            if (page.length === query.limit) {
              next = { height, position };
              break;
            }
            page.push(events[position]!);
          }
        }
      }
      return { events: page, nextCursor: next === undefined ? null : cursorText(next) };
    },
  });
}

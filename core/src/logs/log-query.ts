import { availableParallelism } from 'node:os';
import type { PrefixedHexString } from '@ethereumjs/util';
import { LogMatcher, type LogCriteria, type LogMatch } from './log-criteria.js';
import { storedLogJson, storedLogMatches } from './stored-log.js';
import type { Chain } from '../chain/chain.js';
import { IndexScan, shortestScan, type Candidate } from './index-scan.js';
import type { LogIndexKey, LogPosition } from './log-index.js';
import { InvalidInputError, LimitExceededError } from '../errors/rpc-error.js';
import type { BlockNumberOrTag } from '../rpc/block-codecs.js';
import { toQuantity } from '../rpc/hex-codecs.js';
import { JsonArrayPacker, RawJson } from '../rpc/raw-json.js';
import type { FoundLog, LogQuery, LogQueryLimits, LogRange, LogView } from '../api/log-query.js';
import { LargeQueryRate } from './large-query-rate.js';
import { GatheredLogsRoom } from './gathered-logs-room.js';
import type { HeldAnswers } from '../transport/held-answers.js';

/** Queries over more blocks than this are large: they share one rate limit, as in the reference node, and each client its share of it. */
const LARGE_QUERY_BLOCKS = 100;
const LARGE_QUERIES_PER_SECOND = 30;

/** Most (address, first topic) pairs scanned through the combined index; beyond, the address index. */
const MAX_EVENT_INDEX_PAIRS = 64;

/** Stored logs read per round trip while checking candidates. */
const READ_CHUNK = 2048;

/** A closed range is read in up to this many segments at once; each spans at least MIN_SEGMENT_BLOCKS. */
const PARALLEL_SEGMENTS = Math.min(4, availableParallelism());
const MIN_SEGMENT_BLOCKS = 250;

/** Index entries each candidate index yields per turn while the shortest one is sought. */
const SCAN_TURN = 512;

/**
 * The log query behind `eth_getLogs` and the filters: the reference node's checks and limits,
 * then a scan of the most selective log index, serving the stored JSON bytes as they are.
 */
export class IndexedLogQuery implements LogQuery {
  readonly #largeQueries: LargeQueryRate;

  constructor(
    private readonly chain: Chain,
    readonly limits: LogQueryLimits,
    private readonly heldAnswers: HeldAnswers,
  ) {
    this.#largeQueries = new LargeQueryRate(LARGE_QUERIES_PER_SECOND, limits.clientShare);
  }

  /** `eth_getLogs` (or `ext_getLogs`): the logs `criteria` selects, after the range checks and limits. */
  async logs(criteria: LogCriteria, view: LogView = 'eth', client?: string): Promise<RawJson> {
    const range = await this.range(criteria);
    if (range === undefined) return RawJson.array([]);
    if (range.to - range.from + 1 > LARGE_QUERY_BLOCKS && !this.#largeQueries.tryTake(client)) {
      throw new LimitExceededError('log query rate limit exceeded for large queries, please try again later');
    }
    const limit = range.openEnded ? this.limits.maxOpenEndedLogs : Number.POSITIVE_INFINITY;
    // Packed as they are found: half a million logs kept as objects until the end cost the
    // garbage collector pauses of up to 200 ms, and listing them as pieces a second of writing.
    const packer = new JsonArrayPacker();
    await this.#gather({ match: criteria, from: range.from, to: range.to, limit }, view, {
      get count() {
        return packer.count;
      },
      add: (_position, json) => packer.append(json),
    });
    return packer.end();
  }

  /**
   * The heights `criteria` covers, or undefined for an unknown block hash (no logs). Checked in
   * the reference node's order: fromBlock after toBlock, toBlock after the head, then a closed
   * range over `max_blocks_for_log`.
   */
  async range(criteria: LogCriteria): Promise<LogRange | undefined> {
    if (criteria.blockHash !== undefined) {
      const height = await this.chain.store.heightOf(criteria.blockHash);
      return height === undefined ? undefined : { from: height, to: height, openEnded: false };
    }
    const head = this.chain.head().height;
    const to = criteria.toBlock === undefined ? head : heightOf(criteria.toBlock, head);
    let from = criteria.fromBlock === undefined ? head : heightOf(criteria.fromBlock, head);
    if (criteria.fromBlock === undefined && from > to) from = to;
    if (from > to) throw new InvalidInputError(`requested fromBlock ${from} is greater than toBlock ${to}`);
    if (to > head) throw new InvalidInputError(`requested toBlock ${to} is after latest available block ${head}`);
    const openEnded = criteria.toBlock === undefined || isHeadTag(criteria.toBlock);
    const blocks = to - from + 1;
    if (!openEnded && blocks > this.limits.maxBlocks) {
      throw new InvalidInputError(
        `block range too large (${blocks}), maximum allowed is ${this.limits.maxBlocks} blocks`,
      );
    }
    return { from, to, openEnded };
  }

  async find(
    match: LogMatch,
    from: number,
    to: number,
    limit: number,
    after?: LogPosition,
    view: LogView = 'eth',
  ): Promise<FoundLog[]> {
    const found: FoundLog[] = [];
    await this.#gather({ match, from, to, limit, after }, view, {
      get count() {
        return found.length;
      },
      add: (position, json) => found.push({ position, json }),
    });
    return found;
  }

  /** Adds the logs `match` selects in the range, in `view`, to `found`, in order, until it holds `limit`. */
  #gather(search: LogSearch, view: LogView, found: FoundLogSink): Promise<void> {
    return view === 'eth' ? this.#findEvm(search, found) : this.#findExt(search, found);
  }

  async #findEvm({ match, from, to, limit, after }: LogSearch, found: FoundLogSink): Promise<void> {
    const matcher = new LogMatcher(match);
    const room = new GatheredLogsRoom(this.heldAnswers);
    const keep = (position: LogPosition, stored: Uint8Array, exact: boolean) => {
      if (after !== undefined && comparePositions(position, after) <= 0) return;
      if (!exact && !storedLogMatches(stored, matcher)) return;
      const json = storedLogJson(stored);
      room.take(json.length);
      found.add(position, json);
    };
    const indexes = candidateIndexes(match);
    const scans: IndexScan[] = [];
    try {
      if (indexes.length === 0) {
        for await (const { position, stored } of this.chain.store.storedLogsBetween(from, to)) {
          if (found.count >= limit) break;
          keep(position, stored, false);
        }
        return;
      }
      const { index, blocks } = await this.#candidates(indexes, from, to, limit, scans);
      const exact = indexes[index]!.exact;
      let pending: Candidate[] = [];
      const check = async () => {
        const unread = pending.filter((candidate) => candidate.stored === undefined);
        const stored =
          unread.length === 0 ? [] : await this.chain.store.storedLogs(unread.map(({ position }) => position));
        let next = 0;
        for (const candidate of pending) {
          if (found.count >= limit) break;
          keep(candidate.position, candidate.stored ?? stored[next++]!, exact);
        }
        pending = [];
      };
      for await (const block of blocks) {
        // Not spread into push: a 60M-gas block may hold 140,000 logs, past a call's argument limit.
        for (const candidate of block) pending.push(candidate);
        if (pending.length >= READ_CHUNK) await check();
        if (found.count >= limit) break;
      }
      if (found.count < limit) await check();
    } finally {
      room.release();
      await Promise.all(scans.map((scan) => scan.close()));
    }
  }

  /**
   * The candidate logs of the query, block by block, from the index that will read fewest: the
   * only one as it comes (an open-ended query stops at its limit), a closed range's in parallel
   * segments, or the shortest of several. The scans opened are added to `scans` for closing.
   */
  async #candidates(
    indexes: readonly CandidateIndex[],
    from: number,
    to: number,
    limit: number,
    scans: IndexScan[],
  ): Promise<{ readonly index: number; readonly blocks: AsyncIterable<Candidate[]> | Iterable<Candidate[]> }> {
    const scanOf = (keys: readonly LogIndexKey[], low: number, high: number) =>
      new IndexScan(keys.map((key) => this.chain.store.logIndexBlocks(key, low, high)));
    if (indexes.length > 1) {
      scans.push(...indexes.map(({ keys }) => scanOf(keys, from, to)));
      return shortestScan(scans, SCAN_TURN);
    }
    if (limit === Number.POSITIVE_INFINITY) {
      scans.push(...segmentsOf(from, to).map(([low, high]) => scanOf(indexes[0]!.keys, low, high)));
      return { index: 0, blocks: (await Promise.all(scans.map(readWhole))).flat() };
    }
    scans.push(scanOf(indexes[0]!.keys, from, to));
    return { index: 0, blocks: blocksOf(scans[0]!) };
  }

  /**
   * The `ext` view: a block's synthetic logs (few: one per pointer transfer) come first, so its
   * EVM logs and their transactions move up by that many places. Both are found in order, and
   * merged as the EVM logs are found.
   */
  async #findExt(search: LogSearch, found: FoundLogSink): Promise<void> {
    const { match, from, to, limit, after } = search;
    const synthetic: FoundLog[] = [];
    const shifts = new Map<number, number>();
    if (from <= (await this.chain.store.lastSyntheticLogHeight())) {
      const matcher = new LogMatcher(match);
      for await (const { position, stored } of this.chain.store.syntheticLogsBetween(from, to)) {
        shifts.set(position.height, (shifts.get(position.height) ?? 0) + 1);
        const unseen = after === undefined || comparePositions(position, after) > 0;
        if (unseen && storedLogMatches(stored, matcher)) synthetic.push({ position, json: storedLogJson(stored) });
      }
    }
    const shift = (height: number) => shifts.get(height) ?? 0;
    let next = 0;
    /** Adds the synthetic logs of the blocks up to `height`, all of them by default. */
    const addSynthetic = (height = Number.POSITIVE_INFINITY) => {
      for (; next < synthetic.length && synthetic[next]!.position.height <= height && found.count < limit; next++) {
        found.add(synthetic[next]!.position, synthetic[next]!.json);
      }
    };
    // `after` is an `ext` position: the EVM scan resumes after the EVM log it moved up.
    const evmAfter = after === undefined ? undefined : { ...after, logIndex: after.logIndex - shift(after.height) };
    await this.#findEvm(
      { ...search, after: evmAfter },
      {
        get count() {
          return found.count;
        },
        add: (position, json) => {
          addSynthetic(position.height);
          if (found.count >= limit) return;
          const moved = inExtView({ position, json }, shift(position.height));
          found.add(moved.position, moved.json);
        },
      },
    );
    addSynthetic();
  }
}

/** What a query looks for: its criteria, its heights, the most logs it gives, and the position it resumes after. */
interface LogSearch {
  readonly match: LogMatch;
  readonly from: number;
  readonly to: number;
  readonly limit: number;
  readonly after?: LogPosition | undefined;
}

/** Where a query puts the logs it finds, in order. */
interface FoundLogSink {
  readonly count: number;
  add(position: LogPosition, json: Uint8Array): void;
}

/** A candidate index of a query: a union of index keys, and whether its entries all match. */
interface CandidateIndex {
  readonly keys: readonly LogIndexKey[];
  /** True when the index holds exactly the matching logs, so none needs checking. */
  readonly exact: boolean;
}

/**
 * The indexes that could drive a query: the event index (emitter and first topic) when both are
 * given, else the emitter index, and each constrained topic position.
 */
function candidateIndexes(match: LogMatch): CandidateIndex[] {
  const candidates: CandidateIndex[] = [];
  const [firstTopics] = match.topics;
  const addresses = match.addresses;
  const byEvent =
    addresses !== undefined && firstTopics != null && addresses.length * firstTopics.length <= MAX_EVENT_INDEX_PAIRS;
  if (byEvent) {
    const keys = addresses.flatMap((address) => firstTopics.map((topic0) => ({ address, topic0 })));
    candidates.push({ keys, exact: match.topics.length === 1 });
  } else if (addresses !== undefined) {
    candidates.push({ keys: addresses.map((address) => ({ address })), exact: false });
  }
  match.topics.forEach((alternatives, position) => {
    if (alternatives === null || (byEvent && position === 0)) return;
    candidates.push({ keys: alternatives.map((topic: PrefixedHexString) => ({ topic, position })), exact: false });
  });
  return candidates;
}

/** Heights split into parallel segments, when there are enough of them to be worth it. */
function segmentsOf(from: number, to: number): [number, number][] {
  const count = Math.min(PARALLEL_SEGMENTS, Math.floor((to - from + 1) / MIN_SEGMENT_BLOCKS)) || 1;
  const size = Math.ceil((to - from + 1) / count);
  return Array.from({ length: count }, (_, index): [number, number] => [
    from + index * size,
    Math.min(to, from + (index + 1) * size - 1),
  ]);
}

async function readWhole(scan: IndexScan): Promise<Candidate[][]> {
  const blocks: Candidate[][] = [];
  for await (const block of blocksOf(scan)) blocks.push(block);
  return blocks;
}

/** A scan's blocks as they are read. */
async function* blocksOf(scan: IndexScan): AsyncIterable<Candidate[]> {
  for (let block = await scan.nextBlock(); block !== undefined; block = await scan.nextBlock()) yield block;
}

const NOT_SYNTHETIC = Buffer.from(',"synthetic":false}', 'utf8');

const TRANSACTION_INDEX_FIELD = Buffer.from(',"transactionIndex":"', 'utf8');
const LOG_INDEX_FIELD = Buffer.from(',"logIndex":"', 'utf8');
const QUOTE = 0x22;

/** An EVM log as the `ext` view numbers it: `shift` synthetic logs and transactions precede it. */
function inExtView(log: FoundLog, shift: number): FoundLog {
  const stored = Buffer.from(log.json.buffer, log.json.byteOffset, log.json.byteLength);
  // Most blocks have no pointer transfer: the stored JSON only gains its last field.
  if (shift === 0) return { position: log.position, json: Buffer.concat([stored.subarray(0, -1), NOT_SYNTHETIC]) };
  // The stored JSON ends `,"transactionIndex":"0x..","blockHash":"0x..","logIndex":"0x..","removed":false}`
  // (formatLog). Hex data holds no quote, so the last matches are these fields; only the two indexes change.
  const transactionIndexStart = stored.lastIndexOf(TRANSACTION_INDEX_FIELD) + TRANSACTION_INDEX_FIELD.length;
  const transactionIndexEnd = stored.indexOf(QUOTE, transactionIndexStart);
  const logIndexStart = stored.lastIndexOf(LOG_INDEX_FIELD) + LOG_INDEX_FIELD.length;
  const logIndex = log.position.logIndex + shift;
  const transactionIndex = toQuantity(
    Number(stored.toString('latin1', transactionIndexStart, transactionIndexEnd)) + shift,
  );
  const end = `${toQuantity(logIndex)}","removed":false,"synthetic":false}`;
  // One allocation per log: this runs for every log of a block with a pointer transfer.
  const json = Buffer.allocUnsafe(
    transactionIndexStart + transactionIndex.length + (logIndexStart - transactionIndexEnd) + end.length,
  );
  let offset = stored.copy(json, 0, 0, transactionIndexStart);
  offset += json.write(transactionIndex, offset, 'latin1');
  offset += stored.copy(json, offset, transactionIndexEnd, logIndexStart);
  json.write(end, offset, 'latin1');
  return { position: { height: log.position.height, logIndex }, json };
}

function heightOf(block: BlockNumberOrTag, head: number): number {
  if (typeof block === 'bigint') return Number(block);
  return block === 'earliest' ? 0 : head;
}

function isHeadTag(block: BlockNumberOrTag): boolean {
  return typeof block !== 'bigint' && block !== 'earliest';
}

export function comparePositions(a: LogPosition, b: LogPosition): number {
  return a.height - b.height || a.logIndex - b.logIndex;
}

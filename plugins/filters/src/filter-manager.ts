import {
  ClientQuota,
  CriteriaRoom,
  criteriaValues,
  InvalidInputError,
  LimitExceededError,
  MAX_HELD_CRITERIA_VALUES,
  newRpcId,
  RawJson,
  type ChainReader,
  type CoreConfig,
  type LogCriteria,
  type LogPosition,
  type LogQuery,
  type LogView,
} from '@evmnode/core';

/** The most a block can hold: a cursor at this log index covers the whole block. */
const WHOLE_BLOCK = 0xffff_ffff;

interface LogFilter {
  readonly kind: 'logs';
  /** The client that installed it, whose share of `max_filters` it takes. */
  readonly clientId: string;
  readonly criteria: LogCriteria;
  /** The room its criteria take ({@link criteriaValues}). */
  readonly values: number;
  readonly view: LogView;
  /** The last log delivered (or the end of the last block covered). */
  cursor: LogPosition;
  lastPoll: number;
}

interface BlockFilter {
  readonly kind: 'blocks';
  readonly clientId: string;
  /** The height of the last block delivered. */
  cursor: number;
  lastPoll: number;
}

type Filter = LogFilter | BlockFilter;

export interface FilterLimits {
  /** A filter not polled for this long (ms) is removed (`filter_timeout`). */
  readonly timeoutMs: number;
  /** Most filters installed at once (`max_filters`). */
  readonly maxFilters: number;
  /** Share of `maxFilters` one client may hold (`max_client_share`). */
  readonly clientShare: number;
}

/** The filter limits `[evm]` sets; the `eth_` and the legacy `ext_` filters each have them. */
export function filterLimitsOf({ evm }: CoreConfig): FilterLimits {
  return { timeoutMs: evm.filter_timeout, maxFilters: evm.max_filters, clientShare: evm.max_client_share };
}

/**
 * Polled filters (interface.md §3, §4.6): log filters and block filters, with unguessable IDs,
 * expiry after `filter_timeout` without a poll, and a cap on how many exist. Changes are read
 * from the chain's indexes from a per-filter cursor, so a filter holds no buffered logs.
 */
export class FilterManager {
  /** By ID, in the order of their last polls (an install is the first). */
  readonly #filters = new Map<string, Filter>();
  readonly #perClient: ClientQuota;
  readonly #criteriaRoom: CriteriaRoom;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly chain: ChainReader,
    private readonly logQuery: LogQuery,
    private readonly limits: FilterLimits,
  ) {
    this.#perClient = new ClientQuota(limits.maxFilters, limits.clientShare);
    this.#criteriaRoom = new CriteriaRoom(MAX_HELD_CRITERIA_VALUES, limits.clientShare);
  }

  /** Removes expired filters periodically, so that unpolled ones do not hold memory. */
  start(): void {
    this.#sweeper = setInterval(() => this.#sweep(), Math.max(this.limits.timeoutMs / 2, 100));
    this.#sweeper.unref();
  }

  stop(): void {
    clearInterval(this.#sweeper);
    for (const id of [...this.#filters.keys()]) this.#remove(id);
  }

  /**
   * A log filter: its changes are the matching logs of blocks committed after now. `view` is
   * `ext` for the deprecated `ext_newFilter`, whose logs include synthetic ones. `clientId` is
   * the request's client (`RequestContext.clientId`).
   */
  newLogFilter(clientId: string, criteria: LogCriteria, view: LogView = 'eth'): string {
    const cursor = { height: this.chain.head().height, logIndex: WHOLE_BLOCK };
    return this.#install({
      kind: 'logs',
      clientId,
      criteria,
      values: criteriaValues(criteria),
      view,
      cursor,
      lastPoll: 0,
    });
  }

  /** A block filter: its changes are the hashes of blocks committed after now. */
  newBlockFilter(clientId: string): string {
    return this.#install({ kind: 'blocks', clientId, cursor: this.chain.head().height, lastPoll: 0 });
  }

  /** What is new since the last poll: matching logs, or block hashes. */
  async changes(id: string): Promise<RawJson> {
    const filter = this.#poll(id);
    return filter.kind === 'blocks' ? this.#newBlockHashes(filter) : this.#newLogs(filter);
  }

  /** Every log the filter's criteria select, with `eth_getLogs`'s checks and limits. */
  async logs(id: string): Promise<RawJson> {
    const filter = this.#poll(id);
    if (filter.kind !== 'logs') throw new InvalidInputError('filter does not exist');
    return this.logQuery.logs(filter.criteria, filter.view, filter.clientId);
  }

  /** Removes a filter: true if it existed. */
  uninstall(id: string): boolean {
    const filter = this.#remove(id);
    return filter !== undefined && !this.#expired(filter);
  }

  #install(filter: Filter): string {
    if (this.#filters.size >= this.limits.maxFilters) this.#sweep();
    if (this.#filters.size >= this.limits.maxFilters) {
      throw new LimitExceededError(`filter limit reached: at most ${this.limits.maxFilters} filters can be installed`);
    }
    if (this.#take(filter) !== undefined) {
      // The client's own expired filters, and their criteria, no longer count against it.
      this.#sweep();
      const refusal = this.#take(filter);
      if (refusal !== undefined) throw new LimitExceededError(refusal);
    }
    const id = newRpcId();
    filter.lastPoll = performance.now();
    this.#filters.set(id, filter);
    return id;
  }

  /** Takes the filter's client's share of `max_filters` and room for its criteria; the refusal when one has none left. */
  #take(filter: Filter): string | undefined {
    const { clientId } = filter;
    if (!this.#perClient.tryAcquire(clientId)) {
      return `filter limit reached: at most ${this.#perClient.perClient} filters per client can be installed`;
    }
    if (filter.kind === 'logs' && !this.#criteriaRoom.tryTake(clientId, filter.values)) {
      this.#perClient.release(clientId);
      const room = this.#criteriaRoom;
      return `filter limit reached: filters hold at most ${room.total} addresses and topics, ${room.perClient} per client`;
    }
    return undefined;
  }

  /** The filter `id`, its expiry renewed; an unknown or expired one is -32000 `filter does not exist`. */
  #poll(id: string): Filter {
    const filter = this.#filters.get(id);
    if (filter === undefined || this.#expired(filter)) {
      this.#remove(id);
      throw new InvalidInputError('filter does not exist');
    }
    filter.lastPoll = performance.now();
    // Kept in the order of their last polls, so that a sweep stops at the first filter still live.
    this.#filters.delete(id);
    this.#filters.set(id, filter);
    return filter;
  }

  #expired(filter: Filter): boolean {
    return performance.now() - filter.lastPoll > this.limits.timeoutMs;
  }

  /**
   * Removes the expired filters, the least recently polled first, up to the first live one: an
   * install refused at the cap costs no walk over every filter (0.7 ms for 10,000).
   */
  #sweep(): void {
    for (const [id, filter] of this.#filters) {
      if (!this.#expired(filter)) return;
      this.#remove(id);
    }
  }

  /** Removes a filter and gives its client's share back; the filter, if it existed. */
  #remove(id: string): Filter | undefined {
    const filter = this.#filters.get(id);
    if (filter === undefined) return undefined;
    this.#filters.delete(id);
    this.#perClient.release(filter.clientId);
    if (filter.kind === 'logs') this.#criteriaRoom.give(filter.clientId, filter.values);
    return filter;
  }

  async #newBlockHashes(filter: BlockFilter): Promise<RawJson> {
    const head = this.chain.head().height;
    const heights = Array.from({ length: Math.max(head - filter.cursor, 0) }, (_, index) => filter.cursor + 1 + index);
    filter.cursor = Math.max(head, filter.cursor);
    const blocks = await Promise.all(heights.map((height) => this.chain.blockAt(height)));
    return RawJson.array(blocks.map((block) => JSON.stringify(block!.hash)));
  }

  /**
   * Matching logs after the cursor, up to the head (or the filter's toBlock), at most
   * `max_log_no_block` per poll: the cursor then stops at the last log served, and the next
   * poll goes on from there.
   */
  async #newLogs(filter: LogFilter): Promise<RawJson> {
    const { criteria, cursor } = filter;
    const head = this.chain.head().height;
    const to = typeof criteria.toBlock === 'bigint' ? Math.min(Number(criteria.toBlock), head) : head;
    // A cursor at the end of a block resumes at the next one: a poll without new blocks reads nothing.
    const resumeAt = cursor.logIndex === WHOLE_BLOCK ? cursor.height + 1 : cursor.height;
    const from = typeof criteria.fromBlock === 'bigint' ? Math.max(Number(criteria.fromBlock), resumeAt) : resumeAt;
    if (criteria.blockHash !== undefined || from > to) return RawJson.array([]);
    const limit = this.logQuery.limits.maxOpenEndedLogs;
    const found = await this.logQuery.find(criteria, from, to, limit, cursor, filter.view);
    filter.cursor = found.length === limit ? found[found.length - 1]!.position : { height: to, logIndex: WHOLE_BLOCK };
    return RawJson.array(found.map(({ json }) => json));
  }
}

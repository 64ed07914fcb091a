import type { LogCriteria, LogMatch } from '../logs/log-criteria.js';
import type { LogPosition } from '../logs/log-index.js';
import type { RawJson } from '../rpc/raw-json.js';

/** The limits of interface.md §8, from `[evm]`. */
export interface LogQueryLimits {
  /** Most blocks a closed range may span (`max_blocks_for_log`, inclusive). */
  readonly maxBlocks: number;
  /** Most logs an open-ended query returns (`max_log_no_block`). */
  readonly maxOpenEndedLogs: number;
  /** Share of the rate of queries over 100 blocks one client may take (`max_client_share`). */
  readonly clientShare: number;
}

/** The blocks a query covers; open-ended when its end is the head rather than a number. */
export interface LogRange {
  readonly from: number;
  readonly to: number;
  readonly openEnded: boolean;
}

/**
 * Which logs a query sees: `eth`, EVM logs only; `ext` (the deprecated `ext_` log methods), also
 * the synthetic logs of pointer transfers, first in their block, every log with a `synthetic` flag.
 */
export type LogView = 'eth' | 'ext';

/** A matching log: where it is (in its view's numbering) and its JSON, as UTF-8 bytes. */
export interface FoundLog {
  readonly position: LogPosition;
  readonly json: Uint8Array;
}

/**
 * The log queries behind `eth_getLogs` and the filters, with the reference node's checks and
 * limits. Since 2.13.0 the logs a query finds take room among the answers held for clients
 * (`HeldAnswers`) until it returns: -32005 past it.
 */
export interface LogQuery {
  readonly limits: LogQueryLimits;
  /**
   * `eth_getLogs` (or `ext_getLogs` with view `ext`): the logs `criteria` selects, as a JSON array.
   * A query over 100 blocks takes a token of the node's rate and, since 2.12.0, of `client`'s
   * share of it (`RequestContext.clientId`) when one is named.
   */
  logs(criteria: LogCriteria, view?: LogView, client?: string): Promise<RawJson>;
  /**
   * The heights `criteria` covers, or undefined for an unknown block hash (no logs), after the
   * range checks (-32000 with the reference node's words).
   */
  range(criteria: LogCriteria): Promise<LogRange | undefined>;
  /**
   * The logs `match` selects between two heights (inclusive), in chain order, at most `limit`,
   * and only those after `after` when given (a filter's cursor, in the view's numbering).
   */
  find(
    match: LogMatch,
    from: number,
    to: number,
    limit: number,
    after?: LogPosition,
    view?: LogView,
  ): Promise<FoundLog[]>;
}

import type { PrefixedHexString } from '@ethereumjs/util';
import type { BlockNumberOrTag } from '../rpc/block-codecs.js';

/** Most topic positions a criteria may constrain, as in geth. */
export const MAX_TOPIC_POSITIONS = 4;

/** Most addresses, or alternatives at one topic position, a criteria may list (geth's limit). */
export const MAX_ALTERNATIVES = 1000;

/**
 * Which logs match: emitted by one of `addresses` (any when absent), with, at each topic
 * position, one of the listed topics (null: any topic). Hex is lower-case.
 */
export interface LogMatch {
  readonly addresses?: readonly PrefixedHexString[];
  readonly topics: readonly (readonly PrefixedHexString[] | null)[];
}

/** A log filter criteria object (interface.md §2.4): a match and the blocks to search. */
export interface LogCriteria extends LogMatch {
  readonly fromBlock?: BlockNumberOrTag;
  readonly toBlock?: BlockNumberOrTag;
  readonly blockHash?: PrefixedHexString;
}

/** A {@link LogMatch} prepared for testing many logs: sets instead of lists. */
export class LogMatcher {
  readonly #addresses: ReadonlySet<string> | undefined;
  readonly #topics: readonly (ReadonlySet<string> | null)[];

  constructor(readonly match: LogMatch) {
    this.#addresses = match.addresses === undefined ? undefined : new Set(match.addresses);
    this.#topics = match.topics.map((alternatives) => (alternatives === null ? null : new Set(alternatives)));
  }

  /** Whether a log emitted by `address` with `topics` (lower-case hex) matches. */
  matches(address: string, topics: readonly string[]): boolean {
    if (this.#addresses !== undefined && !this.#addresses.has(address)) return false;
    // geth's rule: a log has at least as many topics as there are positions, wildcards included.
    if (topics.length < this.#topics.length) return false;
    for (let position = 0; position < this.#topics.length; position++) {
      const alternatives = this.#topics[position];
      if (alternatives === null || alternatives === undefined) continue;
      if (!alternatives.has(topics[position]!)) return false;
    }
    return true;
  }
}

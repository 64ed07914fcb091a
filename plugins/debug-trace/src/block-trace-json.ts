import { RawJson } from '@evmnode/core';
import type { BlockTraceEntry } from './trace-service.js';

const ENTRY_END = Buffer.from('}');

/**
 * A block trace's answer, `[{"txHash":..,"result":..}]`, built from its entries' JSON: each
 * transaction's result was made JSON when its trace ended, so that the megabytes of a whole block's
 * struct logs are never serialised in one piece.
 */
export function blockTraceJson(entries: readonly BlockTraceEntry[]): RawJson {
  return RawJson.array(
    entries.map((entry) =>
      'error' in entry
        ? JSON.stringify(entry)
        : Buffer.concat([
            Buffer.from(`{"txHash":${JSON.stringify(entry.txHash)},"result":`),
            jsonOf(entry.result).bytes,
            ENTRY_END,
          ]),
    ),
  );
}

/** `value` as JSON: as it is when it already is. */
export function jsonOf(value: unknown): RawJson {
  return value instanceof RawJson ? value : new RawJson(Buffer.from(JSON.stringify(value) ?? 'null'));
}

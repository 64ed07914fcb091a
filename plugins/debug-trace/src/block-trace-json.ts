import { RawJson } from '@evmnode/core';
import type { BlockTraceEntry } from './trace-service.js';

const ENTRY_END = Buffer.from('}');
const ARRAY_END = Buffer.from(']');

/**
 * A block trace's answer, `[{"txHash":..,"result":..}]`, made of its entries' JSON as it is: each
 * transaction's result was made JSON when its trace ended, so that the megabytes of a whole block's
 * struct logs are never serialised, nor copied, in one piece.
 */
export function blockTraceJson(entries: readonly BlockTraceEntry[]): RawJson {
  const parts: Uint8Array[] = [];
  entries.forEach((entry, index) => {
    const before = index === 0 ? '[' : ',';
    if ('error' in entry) {
      parts.push(Buffer.from(before + JSON.stringify(entry)));
    } else {
      parts.push(Buffer.from(`${before}{"txHash":${JSON.stringify(entry.txHash)},"result":`));
      for (const part of jsonOf(entry.result).parts) parts.push(part);
      parts.push(ENTRY_END);
    }
  });
  if (entries.length === 0) parts.push(Buffer.from('['));
  parts.push(ARRAY_END);
  return new RawJson(parts);
}

/** `value` as JSON: as it is when it already is. */
export function jsonOf(value: unknown): RawJson {
  return value instanceof RawJson ? value : new RawJson(Buffer.from(JSON.stringify(value) ?? 'null'));
}

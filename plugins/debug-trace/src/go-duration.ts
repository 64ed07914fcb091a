import { InvalidInputError } from '@evmnode/core';

/** Nanoseconds per unit, as Go's `time` package names them. */
const UNIT_NANOS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n],
  ['\u03bcs', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

const MAX_NANOS = (1n << 63n) - 1n;

/** One `<number><unit>` term: digits, an optional fraction, then the unit (anything up to the next digit or dot). */
const TERM = /^(\d*)(?:\.(\d*))?([^\d.]*)/u;

/**
 * The longest duration text read: Go's longest, `2562047h47m16.854775807s`, has 24 characters. A
 * timeout of megabytes of `1ns` terms took 280 ms of the node's thread to read, and its error would
 * have quoted it whole.
 */
const MAX_DURATION_CHARS = 100;

const invalid = (text: string) => new InvalidInputError(`time: invalid duration ${JSON.stringify(text)}`);

/**
 * A duration as Go's `time.ParseDuration` reads it (geth's trace `timeout`), in milliseconds:
 * terms such as `1h30m`, `1.5s` or `500us`, each with its unit, an optional sign first, and a bare
 * `0`. Errors carry Go's words.
 */
export function parseGoDuration(text: string): number {
  if (text.length > MAX_DURATION_CHARS) throw invalid(`${text.slice(0, MAX_DURATION_CHARS)}...`);
  let rest = text;
  const negative = rest.startsWith('-');
  if (negative || rest.startsWith('+')) rest = rest.slice(1);
  if (rest === '0') return 0;
  if (rest === '') throw invalid(text);
  let nanos = 0;
  let whole = 0n;
  while (rest !== '') {
    const [term, integer = '', fraction, unit = ''] = TERM.exec(rest)!;
    if (integer === '' && (fraction ?? '') === '') throw invalid(text);
    if (unit === '') throw new InvalidInputError(`time: missing unit in duration ${JSON.stringify(text)}`);
    const perUnit = UNIT_NANOS.get(unit);
    if (perUnit === undefined) {
      throw new InvalidInputError(`time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`);
    }
    whole += BigInt(integer || '0') * perUnit;
    if (whole > MAX_NANOS) throw invalid(text);
    if (fraction !== undefined && fraction !== '') nanos += Number(`0.${fraction}`) * Number(perUnit);
    rest = rest.slice(term.length);
  }
  const total = Number(whole) + nanos;
  if (total > Number(MAX_NANOS)) throw invalid(text);
  return ((negative ? -1 : 1) * total) / 1e6;
}

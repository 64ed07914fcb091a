import convict from 'convict';
import ms from 'ms';

let registered = false;

/** Parses `400ms`, `30s`, `2m` or a number of milliseconds. */
export function parseDuration(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (/^\d+$/.test(trimmed)) return Number(trimmed);
    const parsed = ms(trimmed as ms.StringValue) as number | undefined;
    if (typeof parsed === 'number' && Number.isFinite(parsed)) return parsed;
  }
  return Number.NaN;
}

/** Registers evmnode's convict formats once per process. */
export function registerConfigFormats(): void {
  if (registered) return;
  registered = true;
  convict.addFormat({
    name: 'duration',
    coerce: parseDuration,
    validate(value: unknown) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new Error('must be a duration such as "400ms", "30s" or "2m", or a number of milliseconds');
      }
    },
  });
  convict.addFormat({
    name: 'fraction',
    coerce: Number,
    validate(value: unknown) {
      if (typeof value !== 'number' || !(value > 0 && value <= 1))
        throw new Error('must be a number above 0, at most 1');
    },
  });
  convict.addFormat({
    name: 'string-list',
    // Environment variables and flags give a comma-separated list.
    coerce: (value: unknown) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item.length > 0)
        : value,
    validate(value: unknown) {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
        throw new Error('must be a list of strings');
      }
    },
  });
}

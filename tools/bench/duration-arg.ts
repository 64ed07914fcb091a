import { parseArgs } from 'node:util';

/** `--duration <s>`: how long each measured run lasts, `defaultSeconds` without it. */
export function durationArg(defaultSeconds: number): number {
  const { values } = parseArgs({ options: { duration: { type: 'string', default: String(defaultSeconds) } } });
  const seconds = Number(values.duration);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`--duration must be a positive number of seconds`);
  return seconds;
}

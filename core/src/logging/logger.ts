import { pino, type DestinationStream, type Logger } from 'pino';
import type { CoreConfig } from '../config/core-schema.js';

/**
 * The root logger: JSON lines, or pretty text when stdout is a terminal (`[logging] format = auto`).
 * `destination` replaces stdout (tests use it to keep output quiet or to read it).
 * Stdout is written synchronously: an asynchronous stream flushed at `process.exit` can put the
 * last lines out of order while an earlier write is still in flight. The pretty printer is loaded
 * only when used: JSON-logging nodes (services, benches) start without it.
 */
export async function createLogger(logging: CoreConfig['logging'], destination?: DestinationStream): Promise<Logger> {
  const options = { level: logging.level, base: { name: 'evmnode' } };
  if (destination !== undefined) return pino(options, destination);
  const usePretty = logging.format === 'pretty' || (logging.format === 'auto' && process.stdout.isTTY);
  if (!usePretty) return pino(options, pino.destination({ dest: 1, sync: true }));
  const { default: pretty } = await import('pino-pretty');
  return pino(options, pretty({ colorize: true, sync: true }));
}

export type { Logger };

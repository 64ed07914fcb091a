import { open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { StartupError } from '../node/startup-error.js';

/** The marker's file in the database's folder, so that a data folder and its marker go together. */
export const HEAD_MARKER_FILE = 'head-marker.json';

interface MarkerContents {
  readonly height: number;
}

/** The height a marker file's text holds, undefined when it is not a marker. */
function heightIn(text: string): number | undefined {
  try {
    const { height } = JSON.parse(text) as Partial<MarkerContents>;
    return Number.isSafeInteger(height) && height! >= 0 ? height : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `contents` to `file` so that a crash leaves either the old file or the new one, whole. */
async function writeAtomically(file: string, contents: string): Promise<void> {
  const temporary = `${file}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(contents);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  // The rename is durable only once the folder's entry is.
  const folder = await open(path.dirname(file), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/**
 * The height of the last block this node acknowledged, kept in a small file outside RocksDB. A
 * database whose head is below it has lost blocks clients saw (a write-ahead log cut short, a disk
 * that dropped writes), which RocksDB opens without a word: the node refuses to start on it.
 *
 * The marker is written after each block is durable and published, off the block's path: it may
 * lag the database by the blocks whose write was still pending at a crash, never lead it.
 */
export class HeadMarker {
  /** The newest height recorded and not yet written (or being written); older ones are skipped. */
  #pending: number | undefined;
  #writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string,
    /** The height the marker held at start-up, undefined when there was none. */
    readonly acknowledged: number | undefined,
    private readonly logger: Logger,
  ) {}

  /** Reads the marker in the database folder `dataFolder`. */
  static async open(dataFolder: string, logger: Logger): Promise<HeadMarker> {
    const file = path.join(dataFolder, HEAD_MARKER_FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new HeadMarker(file, undefined, logger);
      throw new StartupError(`cannot read the head marker ${file}: ${(error as Error).message}`, { cause: error });
    }
    const height = heightIn(text);
    if (height === undefined) {
      throw new StartupError(`the head marker ${file} holds no block height: delete it to start without the check`);
    }
    return new HeadMarker(file, height, logger);
  }

  /**
   * Refuses a database whose head is below the acknowledged height, unless `acceptRollback`: then
   * warns, naming both heights, and moves the marker down to the database's head.
   */
  async check(databaseHead: number, acceptRollback: boolean): Promise<void> {
    const acknowledged = this.acknowledged;
    if (acknowledged === undefined || databaseHead >= acknowledged) return;
    if (!acceptRollback) {
      throw new StartupError(
        `the database's head is block ${databaseHead} but this node had acknowledged block ${acknowledged} ` +
          `(head marker ${this.file}): its write-ahead log was cut short or the disk lost writes. Restore the ` +
          `data directory from a backup, or start with --state.accept_rollback true to continue from block ${databaseHead}.`,
      );
    }
    this.logger.warn(
      { databaseHead, acknowledged },
      `continuing from block ${databaseHead} although this node had acknowledged block ${acknowledged} ` +
        '([state] accept_rollback): the blocks after it were lost',
    );
    this.record(databaseHead);
    await this.flush();
  }

  /** Writes `height` as the marker, after the writes asked for before it; never waits. */
  record(height: number): void {
    const idle = this.#pending === undefined;
    this.#pending = height;
    if (idle) this.#writing = this.#writing.then(() => this.#writePending());
  }

  /** Resolves once every recorded height is written. */
  flush(): Promise<void> {
    return this.#writing;
  }

  async #writePending(): Promise<void> {
    for (;;) {
      const height = this.#pending!;
      try {
        await writeAtomically(this.file, `${JSON.stringify({ height } satisfies MarkerContents)}\n`);
      } catch (error) {
        this.logger.error({ err: error, height }, `cannot write the head marker ${this.file}`);
      }
      if (this.#pending === height) {
        this.#pending = undefined;
        return;
      }
    }
  }
}

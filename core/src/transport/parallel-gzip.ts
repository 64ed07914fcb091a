import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, type ZlibOptions } from 'node:zlib';

const deflateRawAsync = promisify<Buffer, ZlibOptions, Buffer>(deflateRaw);

/** A gzip member header: magic, deflate, no flags, no time, no extra flags, unknown OS. */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);

const PARTS = Math.min(4, availableParallelism());

/**
 * `data` gzipped at the fastest level, its parts compressed at once on zlib's threads, as pigz
 * does: every part but the last ends with a sync flush instead of a final block, so the raw
 * deflate streams joined make one stream, under one gzip header and one CRC-32. The result is an
 * ordinary single-member gzip that any client decodes; it only gives up back-references across
 * parts, a fraction of a percent of size.
 */
export async function gzipInParallel(data: Buffer): Promise<Buffer> {
  const size = Math.ceil(data.length / PARTS);
  const parts = Array.from({ length: PARTS }, (_, index) => data.subarray(index * size, (index + 1) * size));
  const deflated = await Promise.all(
    parts.map((part, index) =>
      deflateRawAsync(part, {
        level: constants.Z_BEST_SPEED,
        finishFlush: index === PARTS - 1 ? constants.Z_FINISH : constants.Z_SYNC_FLUSH,
      }),
    ),
  );
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(data), 0);
  // ISIZE is the length modulo 2^32.
  trailer.writeUInt32LE(data.length % 2 ** 32, 4);
  return Buffer.concat([HEADER, ...deflated, trailer]);
}

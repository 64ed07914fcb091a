import { promisify } from 'node:util';
import { brotliCompress, constants, gzip, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import type { ResponseBody } from '../rpc/response-text.js';

const gzipAsync = promisify<ResponseBody, ZlibOptions, Buffer>(gzip);
const brotliAsync = promisify<ResponseBody, BrotliOptions, Buffer>(brotliCompress);

/** Answers smaller than this are sent as they are: compressing them costs more than it saves. */
const MIN_COMPRESSED_BYTES = 1024;

/**
 * Answers larger than this (large log queries) are compressed for speed: brotli at quality 1 when
 * the client takes it (browsers), which compresses 6 MB of logs in about 15 ms and smaller than
 * gzip does; else gzip at its fastest level (about 50 ms for the same 6 MB).
 */
const LARGE_BYTES = 256 * 1024;

/** An answer as sent: its body, and the `Content-Encoding` it needs, if any. */
export interface EncodedBody {
  readonly body: ResponseBody;
  readonly encoding?: 'gzip' | 'br';
}

/**
 * Compresses `body` as the client's `Accept-Encoding` allows, when it is worth it. An answer sent
 * as it is (most of them) comes back at once, not as a promise: a turn of the microtask queue per
 * answer shows in the throughput of the cheapest methods.
 */
export function encodeResponse(
  body: ResponseBody,
  acceptEncoding: string | undefined,
): EncodedBody | Promise<EncodedBody> {
  if (body.length < MIN_COMPRESSED_BYTES || acceptEncoding === undefined) return { body };
  return compress(body, acceptEncoding);
}

async function compress(body: ResponseBody, acceptEncoding: string): Promise<EncodedBody> {
  const large = body.length > LARGE_BYTES;
  if (large && /\bbr\b/.test(acceptEncoding)) {
    return { body: await brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }), encoding: 'br' };
  }
  if (!/\bgzip\b/.test(acceptEncoding)) return { body };
  const level = large ? constants.Z_BEST_SPEED : constants.Z_DEFAULT_COMPRESSION;
  return { body: await gzipAsync(body, { level }), encoding: 'gzip' };
}

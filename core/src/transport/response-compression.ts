import { constants, createBrotliCompress, createGzip } from 'node:zlib';
import Negotiator from 'negotiator';
import { isLoopback } from './peer-address.js';
import { bodyLength, type ResponseBody } from '../rpc/response-text.js';

/** Answers smaller than this are sent as they are: compressing them costs more than it saves. */
const MIN_COMPRESSED_BYTES = 1024;

/**
 * Answers larger than this (large log queries) are compressed for speed: brotli at quality 1 when
 * the client takes it (browsers), which compresses 6 MB of logs in about 15 ms and smaller than
 * gzip does; else gzip at its fastest level (about 50 ms for the same 6 MB).
 */
const LARGE_BYTES = 256 * 1024;

export type ContentEncoding = 'gzip' | 'br';

/** negotiator 1.x's `encoding`, whose `preferred` breaks ties in quality (its `@types` still describe 0.6). */
interface PreferringNegotiator {
  encoding(available: readonly string[], options: { preferred: readonly string[] }): string | undefined;
}

/** What a large answer may be sent in, best first when the client rates them alike; then a small one's. */
const LARGE_ANSWER_CODINGS = ['br', 'gzip', 'identity'] as const;
const SMALL_ANSWER_CODINGS = ['gzip', 'identity'] as const;

/** An answer as sent: its body, and the `Content-Encoding` it needs, if any. */
export interface EncodedBody {
  readonly body: ResponseBody;
  readonly encoding?: ContentEncoding;
}

/**
 * The encoding an answer of `size` characters is worth sending in, or undefined to send it as it
 * is: small answers, and every answer to a loopback client (compressing takes longer than sending
 * the bytes over loopback: ethers, which asks for gzip, waited three times as long for 6,000 logs).
 * Otherwise the coding `Accept-Encoding` rates highest (RFC 9110 §12.5.3: q-values, `*`, `q=0`
 * refusing, `identity` acceptable unless refused), brotli only for large answers and first on ties.
 */
export function chooseEncoding(
  size: number,
  acceptEncoding: string | undefined,
  remoteAddress: string | undefined,
): ContentEncoding | undefined {
  if (size < MIN_COMPRESSED_BYTES || acceptEncoding === undefined || isLoopback(remoteAddress)) return undefined;
  const codings = size > LARGE_BYTES ? LARGE_ANSWER_CODINGS : SMALL_ANSWER_CODINGS;
  const negotiator: PreferringNegotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } });
  const chosen = negotiator.encoding(codings, { preferred: codings });
  // Nothing acceptable, identity refused included: the answer goes as it is (RFC 9110 allows it).
  return chosen === 'br' || chosen === 'gzip' ? chosen : undefined;
}

/**
 * Compresses `body` as {@link chooseEncoding} decides. An answer sent as it is (most of them)
 * comes back at once, not as a promise: a turn of the microtask queue per answer shows in the
 * throughput of the cheapest methods.
 */
export function encodeResponse(
  body: ResponseBody,
  acceptEncoding: string | undefined,
  remoteAddress: string | undefined,
): EncodedBody | Promise<EncodedBody> {
  const size = typeof body === 'string' || Buffer.isBuffer(body) ? body.length : bodyLength(body);
  const encoding = chooseEncoding(size, acceptEncoding, remoteAddress);
  if (encoding === undefined) return { body };
  return compress(body, size, encoding);
}

/**
 * `body` compressed, its pieces fed to the compressor as they are and its output kept in the
 * pieces zlib makes: joining a 122 MB trace's pieces first held the node's thread for 300 ms.
 */
async function compress(body: ResponseBody, size: number, encoding: ContentEncoding): Promise<EncodedBody> {
  const compressor =
    encoding === 'br'
      ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } })
      : createGzip({ level: size > LARGE_BYTES ? constants.Z_BEST_SPEED : constants.Z_DEFAULT_COMPRESSION });
  const pieces = typeof body === 'string' || Buffer.isBuffer(body) ? [body] : body;
  // The last piece goes with the end: an answer in one piece is compressed in one go, as zlib's
  // one-shot functions do, which brotli makes smaller.
  for (const piece of pieces.slice(0, -1)) compressor.write(piece);
  compressor.end(pieces.at(-1));
  const compressed: Buffer[] = [];
  for await (const chunk of compressor) compressed.push(chunk as Buffer);
  return { body: compressed, encoding };
}

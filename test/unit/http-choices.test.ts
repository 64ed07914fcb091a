import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { chooseEncoding, encodeResponse, isValidTarget } from '@evmnode/core/internal';

describe('HTTP answer encoding', () => {
  const LARGE = 300 * 1024;

  it('compresses for a remote client that asks: brotli for large answers, gzip otherwise', () => {
    expect(chooseEncoding(LARGE, 'gzip, deflate, br', '203.0.113.7')).to.equal('br');
    expect(chooseEncoding(LARGE, 'gzip, deflate', '203.0.113.7')).to.equal('gzip');
    expect(chooseEncoding(4096, 'gzip, deflate, br', '2001:db8::1')).to.equal('gzip');
    expect(chooseEncoding(4096, 'br', '::ffff:203.0.113.7')).to.equal(undefined);
  });

  it('sends small answers, and answers to clients that do not ask, as they are', () => {
    expect(chooseEncoding(1023, 'gzip', '203.0.113.7')).to.equal(undefined);
    expect(chooseEncoding(LARGE, undefined, '203.0.113.7')).to.equal(undefined);
    expect(chooseEncoding(LARGE, 'identity', '203.0.113.7')).to.equal(undefined);
  });

  it('follows q-values: q=0 refuses a coding, the higher q wins, brotli first on a tie', () => {
    const remote = '203.0.113.7';
    const cases: [size: number, acceptEncoding: string, expected: string | undefined][] = [
      [LARGE, 'br;q=0', undefined],
      [LARGE, 'gzip, br;q=0', 'gzip'],
      [LARGE, 'br, gzip;q=0', 'br'],
      [4096, 'gzip;q=0, br', undefined],
      [LARGE, 'gzip;q=0', undefined],
      [4096, 'gzip;q=0', undefined],
      [LARGE, 'br;q=0.5, gzip;q=0.8', 'gzip'],
      [LARGE, 'gzip;q=0.5, br;q=0.8', 'br'],
      [LARGE, 'gzip;q=0.8, br;q=0.8', 'br'],
      [LARGE, 'GZIP', 'gzip'],
    ];
    for (const [size, acceptEncoding, expected] of cases) {
      expect(chooseEncoding(size, acceptEncoding, remote), `${size} ${acceptEncoding}`).to.equal(expected);
    }
  });

  it('reads * as every coding not named, and sends as is when identity is rated higher or nothing is acceptable', () => {
    const remote = '203.0.113.7';
    const cases: [size: number, acceptEncoding: string, expected: string | undefined][] = [
      [LARGE, '*', 'br'],
      [4096, '*', 'gzip'],
      [LARGE, 'br;q=0, *', 'gzip'],
      [LARGE, 'gzip, *;q=0', 'gzip'],
      [LARGE, '*;q=0', undefined],
      [LARGE, 'identity;q=0, gzip;q=0.1', 'gzip'],
      [LARGE, 'identity, gzip;q=0.5', undefined],
      [LARGE, 'identity;q=0.5, gzip;q=0.5', 'gzip'],
      [LARGE, '', undefined],
    ];
    for (const [size, acceptEncoding, expected] of cases) {
      expect(chooseEncoding(size, acceptEncoding, remote), `${size} ${acceptEncoding}`).to.equal(expected);
    }
  });

  it('never compresses for a loopback client: 127.0.0.0/8, ::1 and IPv4-mapped forms', () => {
    for (const address of ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1']) {
      expect(chooseEncoding(LARGE, 'gzip, br', address), address).to.equal(undefined);
    }
  });
});

describe('HTTP answer compression', () => {
  const REMOTE = '203.0.113.7';
  /** 370 KB of JSON, not all alike, so that compression has work to do: large enough for brotli. */
  const answer = Buffer.from(
    JSON.stringify(Array.from({ length: 12_000 }, (_, index) => ({ index, word: (index * 7919).toString(36) }))),
  );
  const encoded = async (body: Parameters<typeof encodeResponse>[0], acceptEncoding: string) => {
    const { body: sent, encoding } = await encodeResponse(body, acceptEncoding, REMOTE);
    return { encoding, bytes: Buffer.concat(typeof sent === 'string' ? [Buffer.from(sent)] : [sent].flat()) };
  };

  it('compresses an answer in one piece as zlib does in one go', async () => {
    expect(await encoded(answer, 'br')).to.deep.equal({
      encoding: 'br',
      bytes: brotliCompressSync(answer, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }),
    });
    expect(await encoded(answer, 'gzip')).to.deep.equal({
      encoding: 'gzip',
      bytes: gzipSync(answer, { level: constants.Z_BEST_SPEED }),
    });
    const small = answer.subarray(0, 4096);
    expect((await encoded(small, 'gzip')).bytes).to.deep.equal(gzipSync(small));
  });

  it('compresses an answer in pieces, Uint8Arrays among them, as the whole they make', async () => {
    const size = Math.ceil(answer.length / 37);
    const pieces = Array.from({ length: 37 }, (_, index) => {
      const piece = answer.subarray(index * size, (index + 1) * size);
      return index % 2 === 0 ? new Uint8Array(piece) : piece;
    });
    expect(Buffer.concat(pieces)).to.deep.equal(answer);
    const gzipped = await encoded(pieces, 'gzip');
    expect(gzipped.encoding).to.equal('gzip');
    expect(gunzipSync(gzipped.bytes)).to.deep.equal(answer);
    const brotli = await encoded(pieces, 'br');
    expect(brotli.encoding).to.equal('br');
    expect(brotliDecompressSync(brotli.bytes)).to.deep.equal(answer);
  });
});

describe('HTTP request targets', () => {
  it('accepts paths, absolute URLs and *', () => {
    for (const target of ['/', '/rpc?x=1', '/a%20b', 'http://localhost:8545/', '*']) {
      expect(isValidTarget(target), target).to.equal(true);
    }
  });

  it('refuses malformed ones, as Go servers (geth) do', () => {
    for (const target of ['http://[bad', '/%zz', '/a%2', 'rpc', '']) {
      expect(isValidTarget(target), target).to.equal(false);
    }
  });
});

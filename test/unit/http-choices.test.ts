import { expect } from 'chai';
import { chooseEncoding, isValidTarget } from '@evmnode/core/internal';

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

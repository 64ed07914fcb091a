import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { call, RawClient } from '../support/raw-http.js';
import { rpc } from '../support/rpc-client.js';

/** A seeded PRNG (mulberry32): a failing case is reproduced with `FUZZ_SEED=<seed>`. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.FUZZ_SEED ?? 13);
const CASES = 3000;
const PARALLEL = 32;

const BODIES = [
  call('eth_chainId'),
  call('eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest'], 7),
  call('eth_getBlockByNumber', ['latest', true], 'x' as unknown as number),
  JSON.stringify([1, 2, 3].map((id) => JSON.parse(call('eth_blockNumber', [], id)) as unknown)),
  '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"net_version","params":[]}',
  '[]',
  `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0x${'00'.repeat(20)}","data":"0x"},"latest"]}`,
];

type Pick = <T>(list: readonly T[]) => T;

/** A valid request of some kind, with `body` (already mutated, maybe) as its JSON body. */
function validRequest(pick: Pick, body: string): string {
  const length = Buffer.byteLength(body);
  const chunked = `${(length || 1).toString(16)}\r\n${body || ' '}\r\n0\r\n\r\n`;
  const head = 'Host: localhost\r\nContent-Type: application/json\r\n';
  return pick([
    `POST / HTTP/1.1\r\n${head}Content-Length: ${length}\r\n\r\n${body}`,
    `POST /rpc HTTP/1.1\r\n${head}Accept-Encoding: gzip, br\r\nOrigin: https://a.example\r\nContent-Length: ${length}\r\n\r\n${body}`,
    `POST / HTTP/1.1\r\n${head}Transfer-Encoding: chunked\r\n\r\n${chunked}`,
    `POST / HTTP/1.0\r\n${head}Content-Length: ${length}\r\n\r\n${body}`,
    `POST / HTTP/1.1\r\n${head}Expect: 100-continue\r\nContent-Length: ${length}\r\n\r\n${body}`,
    'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n',
    'GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    'OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: https://a.example\r\nAccess-Control-Request-Method: POST\r\n\r\n',
    'DELETE /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n',
  ]);
}

const INTERESTING = [
  '\r\n',
  '\r',
  '\n',
  ':',
  ' ',
  '\t',
  '-',
  '0',
  '9',
  'f',
  '%',
  '{',
  '"',
  '\0',
  '\x7f',
  '\xff',
  ',',
  ';',
  'chunked',
];

/** Flips, inserts, deletes, duplicates or replaces bytes. */
function mutate(text: string, rand: () => number, pick: Pick): string {
  let bytes = text;
  const rounds = 1 + Math.floor(rand() * 4);
  for (let round = 0; round < rounds; round++) {
    const at = Math.floor(rand() * (bytes.length + 1));
    const span = 1 + Math.floor(rand() * 16);
    switch (Math.floor(rand() * 5)) {
      case 0: {
        const code = (bytes.charCodeAt(at) || 0) ^ (1 << Math.floor(rand() * 8));
        bytes = bytes.slice(0, at) + String.fromCharCode(code & 0xff) + bytes.slice(at + 1);
        break;
      }
      case 1:
        bytes = bytes.slice(0, at) + pick(INTERESTING).repeat(1 + Math.floor(rand() * 3)) + bytes.slice(at);
        break;
      case 2:
        bytes = bytes.slice(0, at) + bytes.slice(at + span);
        break;
      case 3:
        bytes = bytes.slice(0, at) + bytes.slice(at, at + span).repeat(2) + bytes.slice(at + span);
        break;
      default:
        bytes = bytes.slice(0, at) + String.fromCharCode(Math.floor(rand() * 256)) + bytes.slice(at + 1);
    }
  }
  return bytes;
}

/** One fuzz case: the bytes to send, and whether to half-close after them. */
function fuzzCase(rand: () => number): { bytes: string; end: boolean } {
  const pick: Pick = (list) => list[Math.floor(rand() * list.length)]!;
  const body = pick(BODIES);
  const kind = rand();
  let bytes: string;
  if (kind < 0.35) bytes = validRequest(pick, mutate(body, rand, pick));
  else if (kind < 0.85) bytes = mutate(validRequest(pick, body), rand, pick);
  else if (kind < 0.95) bytes = validRequest(pick, body) + mutate(validRequest(pick, body), rand, pick);
  else
    bytes = Array.from({ length: Math.floor(rand() * 200) }, () => String.fromCharCode(Math.floor(rand() * 256))).join(
      '',
    );
  // Most clients half-close after their request; a few leave the node's timeouts to close it.
  return { bytes, end: rand() < 0.97 };
}

/**
 * True when `text` is a sequence of whole HTTP/1.x answers: a status line, header lines with
 * colons, and a body of the length the headers say (Content-Length, chunked, or to the close).
 */
function wellFormed(text: string): boolean {
  let rest = text;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) return false;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    if (!/^HTTP\/1\.1 [1-5]\d\d [ -~]*$/.test(statusLine!)) return false;
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) return false;
      headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
    }
    rest = rest.slice(headEnd + 4);
    const status = Number(statusLine!.split(' ')[1]);
    if (status < 200 || status === 204 || status === 304) continue;
    const length = headers.get('content-length');
    if (length !== undefined) {
      if (rest.length < Number(length)) return false;
      rest = rest.slice(Number(length));
    } else if (headers.get('transfer-encoding') === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = parseInt(rest.slice(0, lineEnd), 16);
        if (lineEnd === -1 || Number.isNaN(size) || rest.length < lineEnd + 4 + size) return false;
        rest = rest.slice(lineEnd + 4 + size);
        if (size === 0) break;
      }
    } else {
      rest = '';
    }
  }
  return true;
}

describe('HTTP fuzzing', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ plugins: ['eth-query'], config: { evm: { read_timeout: 1000, idle_timeout: 1000 } } });
  });
  after(() => node.stop());

  it(`answers or closes every one of ${CASES} random and mutated requests (seed ${SEED}), and stays up`, async function () {
    this.timeout(90_000);
    const rand = random(SEED);
    const cases = Array.from({ length: CASES }, () => fuzzCase(rand));
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < cases.length) {
        const index = next++;
        const { bytes, end } = cases[index]!;
        const client = await RawClient.open(node.url);
        client.write(Buffer.from(bytes, 'latin1'));
        if (end) client.end();
        const closed = await Promise.race([
          client.ended.then(() => true),
          new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000)),
        ]);
        const problem = !closed ? 'still open after 10 s' : wellFormed(client.received) ? '' : 'malformed answer';
        if (problem !== '')
          failures.push(`case ${index}: ${problem}: ${JSON.stringify(bytes)} -> ${JSON.stringify(client.received)}`);
        for (const [, status] of client.received.matchAll(/HTTP\/1\.1 (\d{3}) /g)) {
          statuses.set(Number(status), (statuses.get(Number(status)) ?? 0) + 1);
        }
        client.destroy();
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    expect(failures.slice(0, 5)).to.deep.equal([]);
    // The node never failed on its own side, and served plenty of answers and refusals.
    expect(statuses.get(500) ?? 0).to.equal(0);
    expect(node.logs.filter((line) => line.msg === 'HTTP request failed')).to.deep.equal([]);
    expect(statuses.get(200)).to.be.above(CASES / 10);
    expect(statuses.get(400)).to.be.above(CASES / 10);
    expect((await rpc(node.url, 'eth_chainId')).result).to.equal('0xae3f2');
  });
});

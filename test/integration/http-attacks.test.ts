import { once } from 'node:events';
import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Worker } from 'node:worker_threads';
import { expect } from 'chai';
import WebSocket from 'ws';
import { ConnectionLimits } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import type { FloodOptions } from '../support/flood-worker.js';
import { fixturePlugin } from '../support/plugins/paths.js';
import { call, parseResponses, post, RawClient } from '../support/raw-http.js';
import { rpc } from '../support/rpc-client.js';

const CHAIN_ID = '0xae3f2';
const MB = 1024 * 1024;

/** The number of HTTP answers (status lines) in what a connection received. */
function answerCount(received: string): number {
  return received.match(/HTTP\/1\.[01] \d{3} /g)?.length ?? 0;
}

/** The status of the only answer a connection got before the node closed it. */
async function onlyAnswer(client: RawClient): Promise<number> {
  await client.ended;
  expect(answerCount(client.received), client.received).to.equal(1);
  return Number(client.received.split(' ')[1]);
}

/** eth_chainId answers within a second and a new block comes. */
async function expectServing(node: TestNode): Promise<void> {
  const started = performance.now();
  expect((await rpc(node.url, 'eth_chainId')).result).to.equal(CHAIN_ID);
  expect(performance.now() - started).to.be.below(1000);
  const height = Number((await rpc(node.url, 'eth_blockNumber')).result);
  const deadline = Date.now() + 5000;
  while (Number((await rpc(node.url, 'eth_blockNumber')).result) <= height) {
    expect(Date.now()).to.be.below(deadline);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('HTTP attacks', () => {
  let node: TestNode;
  let baselineRss: number;
  before(async () => {
    node = await startTestNode({ plugins: ['eth-query'], config: { evm: { read_timeout: 2000 } } });
    baselineRss = process.memoryUsage().rss;
  });
  after(() => node.stop());

  // The node runs in this process: its memory is this process's.
  afterEach(async () => {
    await expectServing(node);
    expect(process.memoryUsage().rss - baselineRss).to.be.below(300 * MB);
    expect(node.logs.filter((line) => line.msg === 'HTTP request failed')).to.deep.equal([]);
  });

  const head = 'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n';
  const body = call('eth_chainId');
  const framing: [string, string][] = [
    ['a negative Content-Length', `${head}Content-Length: -40\r\n\r\n${body}`],
    ['a Content-Length with a sign', `${head}Content-Length: +${body.length}\r\n\r\n${body}`],
    ['a hexadecimal Content-Length', `${head}Content-Length: 0x${body.length.toString(16)}\r\n\r\n${body}`],
    ['a Content-Length past 2^64', `${head}Content-Length: 99999999999999999999999\r\n\r\n${body}`],
    // The body is a second request: a server that ignores the header would answer it (smuggling).
    [
      'Content-Length with a space before the colon',
      `${head}Content-Length : ${post(body).length}\r\n\r\n${post(body)}`,
    ],
    ['two different Content-Lengths', `${head}Content-Length: ${body.length}\r\nContent-Length: 5\r\n\r\n${body}`],
    [
      'Content-Length and chunked',
      `${head}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    ['chunked then identity', `${head}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n`],
    ['a header line without a colon', `${head}NoColonHere\r\nContent-Length: ${body.length}\r\n\r\n${body}`],
    ['HTTP/9.9', `POST / HTTP/9.9\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`],
    ['a negative chunk size', `${head}Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n`],
    ['a chunk size that is not hexadecimal', `${head}Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`],
  ];
  for (const [name, bytes] of framing) {
    it(`answers ${name} with 400 alone, and closes`, async () => {
      const client = await RawClient.open(node.url);
      client.write(bytes);
      expect(await onlyAnswer(client)).to.equal(400);
    });
  }

  it('answers a malformed request target with 400, not a 500, and closes', async () => {
    for (const line of [
      'POST http://[bad HTTP/1.1',
      'GET http://[bad HTTP/1.1',
      'GET %zz HTTP/1.1',
      'POST /%zz HTTP/1.1',
    ]) {
      const client = await RawClient.open(node.url);
      client.write(
        `${line}\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(await onlyAnswer(client), line).to.equal(400);
    }
  });

  /** Streams `filler` after `start` until the node closes the connection (at most 64 MiB); returns the status. */
  const stream = async (start: string, filler: string): Promise<number> => {
    const client = await RawClient.open(node.url);
    client.write(start);
    const block = filler.repeat(Math.ceil(65_536 / filler.length));
    let left = 1024;
    const written = await client.writeUntilStalled(() => (left-- > 0 ? block : undefined), 5000);
    expect(written).to.be.below(64 * MB);
    return onlyAnswer(client);
  };
  const chunked = `${head}Transfer-Encoding: chunked\r\n\r\n`;

  it('answers a chunk-size line without end with 400', async () => {
    expect(await stream(chunked, 'f')).to.equal(400);
  });

  it('answers a chunk extension without end with 413', async () => {
    expect(await stream(`${chunked}1;`, 'a')).to.equal(413);
  });

  it('answers trailers without end, and a trailer line without end, with 431', async () => {
    expect(await stream(`${chunked}0\r\n`, `X-Trailer: ${'a'.repeat(60)}\r\n`)).to.equal(431);
    expect(await stream(`${chunked}0\r\nX-Trailer: `, 'a')).to.equal(431);
  });

  it('answers a header line without end with 431', async () => {
    expect(await stream('POST / HTTP/1.1\r\nX-Padding: ', 'a')).to.equal(431);
  });

  it('answers a chunk that never ends with 408 after read_timeout', async () => {
    const client = await RawClient.open(node.url);
    client.write(`${chunked}ffffffff\r\n${'a'.repeat(1000)}`);
    expect(await onlyAnswer(client)).to.equal(408);
  });

  it('stops reading, or closes, a pipeline of 200,000 requests whose answers are not read', async function () {
    this.timeout(60_000);
    const client = await RawClient.open(node.url);
    client.stopReading();
    const request = post(call('eth_chainId'));
    let left = 200_000;
    // 1,000 requests a write; written until the node stops reading them.
    const written = await client.writeUntilStalled(() => {
      if (left <= 0) return undefined;
      left -= 1000;
      return request.repeat(1000);
    }, 2000);
    // Read in chunks while served in turns, more than 2,048 may be in flight at once: then it is closed.
    expect(written).to.be.below(200_000 * request.length);
    // The node serves others meanwhile (afterEach checks the memory it holds).
    await expectServing(node);
    client.destroy();
  });

  it('keeps no more than 2,048 requests in flight for a connection that never reads its answers', async function () {
    this.timeout(60_000);
    const request = post(call('eth_getBlockByNumber', ['latest', true]));
    const clients = await Promise.all(Array.from({ length: 10 }, () => RawClient.open(node.url)));
    const heapBefore = process.memoryUsage().heapUsed;
    let peak = heapBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 20);
    try {
      await Promise.all(
        clients.map((client) => {
          client.stopReading();
          let left = 20;
          return client.writeUntilStalled(() => (left-- > 0 ? request.repeat(1000) : undefined), 2000);
        }),
      );
    } finally {
      clearInterval(sampler);
    }
    // 200,000 requests in flight took gigabytes before.
    expect(peak - heapBefore).to.be.below(300 * MB);
    await expectServing(node);
    for (const client of clients) client.destroy();
  });
});

describe('requests received in part, in max_unfinished_request_bytes', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      plugins: ['eth-query'],
      // Room for four bodies of 1 MiB and a few small requests.
      config: { evm: { max_request_body_bytes: MB, max_unfinished_request_bytes: 4.5 * MB } },
    });
  });
  after(() => node.stop());

  /** A call padded with spaces to 1 MiB, as a request split before its last byte. */
  const padded = (id: number): [string, string] => {
    const text = post(call('eth_chainId', [], id) + ' '.repeat(MB - call('eth_chainId', [], id).length));
    return [text.slice(0, -1), text.slice(-1)];
  };
  const CHAIN_ID_ANSWER = (id: number) => ({ jsonrpc: '2.0', id, result: CHAIN_ID });

  it('answers 503 and closes the HTTP requests that have waited longest once those in part pass the bound', async () => {
    const clients: RawClient[] = [];
    for (let id = 1; id <= 6; id++) {
      const client = await RawClient.open(node.url);
      client.write(padded(id)[0]);
      clients.push(client);
      // Each body is read before the next one begins.
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    // The fifth and the sixth body each pass 4.5 MiB: the first two are refused.
    for (const client of clients.slice(0, 2)) {
      expect(await onlyAnswer(client)).to.equal(503);
      expect(JSON.parse(parseResponses(client.received)[0]!.body)).to.deep.equal({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32005, message: 'server busy: too many requests being received' },
      });
    }
    expect((await rpc(node.url, 'eth_chainId')).result).to.equal(CHAIN_ID);
    // The others end their bodies and are answered.
    for (const [index, client] of clients.slice(2).entries()) {
      client.write(padded(index + 3)[1]);
      const [answer] = await client.responses(1);
      expect(JSON.parse(answer!.body)).to.deep.equal(CHAIN_ID_ANSWER(index + 3));
      client.destroy();
    }
  });

  it('closes the WebSocket connections whose messages have waited longest once those in part pass the bound', async () => {
    const frameOf = (id: number): Buffer => {
      const text = Buffer.from(call('eth_chainId', [], id) + ' '.repeat(MB - 1024));
      const head = Buffer.alloc(14);
      head[0] = 0x81;
      head[1] = 0x80 | 127;
      head.writeBigUInt64BE(BigInt(text.length), 2);
      // A zero mask: the payload goes as it is.
      return Buffer.concat([head, text]);
    };
    const clients: { client: RawClient; rest: Buffer }[] = [];
    for (let id = 1; id <= 6; id++) {
      const client = await RawClient.open(node.wsUrl);
      client.write(
        'GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      const frame = frameOf(id);
      client.write(frame.subarray(0, -1));
      clients.push({ client, rest: frame.subarray(-1) });
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    for (const { client } of clients.slice(0, 2)) {
      await client.ended;
      expect(client.received).to.match(/^HTTP\/1\.1 101 /);
    }
    for (const [index, { client, rest }] of clients.slice(2).entries()) {
      expect(client.closed).to.equal(false);
      client.write(rest);
      const answer = JSON.stringify(CHAIN_ID_ANSWER(index + 3));
      const deadline = Date.now() + 5000;
      while (!client.received.includes(answer)) {
        expect(Date.now()).to.be.below(deadline);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      client.destroy();
    }
  });
});

describe('HTTP batches shared out by client', () => {
  it("runs one client's batches by its share of the slots, so that another's batch does not wait behind them", async () => {
    const node = await startTestNode({
      plugins: ['eth-query', fixturePlugin('fixture-rpc')],
      config: { evm: { max_client_share: 0.25 } },
    });
    try {
      /** Sends `body` on a connection of its own from `localAddress`; resolves to the answer and how long it took. */
      const send = async (localAddress: string, body: string) => {
        const client = await RawClient.open(node.url, localAddress);
        const sentAt = performance.now();
        client.write(post(body));
        const [answer] = await client.responses(1, 10_000);
        const answeredAt = performance.now();
        client.destroy();
        return { tookMs: answeredAt - sentAt, answeredAt, body: JSON.parse(answer!.body) as unknown[] };
      };
      // 40 batches, more than the 32 slots, each sleeping 800 ms: a quarter of 32, 8, run at a time.
      const flood = Array.from({ length: 40 }, () => send('127.0.0.2', `[${call('fixture_sleep', ['0x320'])}]`));
      await new Promise((resolve) => setTimeout(resolve, 150));
      const other = await send('127.0.0.1', `[${call('eth_chainId')}]`);
      expect(other.body).to.deep.equal([{ jsonrpc: '2.0', id: 1, result: CHAIN_ID }]);
      // It got a slot at once, where it waited for the flood's first batches to end (800 ms) before.
      expect(other.tookMs).to.be.below(400);
      const flooded = await Promise.all(flood);
      for (const { body } of flooded) expect(body).to.deep.equal([{ jsonrpc: '2.0', id: 1, result: 'awake' }]);
      // Five rounds of eight: the last answers came four rounds after the first.
      const answered = flooded.map(({ answeredAt }) => answeredAt);
      expect(Math.max(...answered) - Math.min(...answered)).to.be.at.least(3 * 800);
    } finally {
      await node.stop();
    }
  });
});

describe("The node's thread shared by client", () => {
  const CONNECTIONS = 100;
  /** 1,000 eth_getBalance: a few milliseconds of the node's thread each. */
  const BATCH = `[${Array.from({ length: 1000 }, (_, index) =>
    call('eth_getBalance', [`0x${(index + 1).toString(16).padStart(40, '0')}`, 'latest'], index),
  ).join(',')}]`;

  for (const transport of ['http', 'ws'] as const) {
    it(`answers another address within tens of milliseconds while one address sends batches on ${CONNECTIONS} ${transport} connections`, async function () {
      this.timeout(60_000);
      // A share of 1: one client may run all 32 batch slots, so that only the thread's turns are shared.
      const node = await startTestNode({ plugins: ['eth-query'], config: { evm: { max_client_share: 1 } } });
      const flood = new Worker(new URL('../support/flood-worker.js', import.meta.url), {
        workerData: {
          transport,
          url: transport === 'http' ? node.url : node.wsUrl,
          localAddress: '127.0.0.2',
          connections: CONNECTIONS,
          body: BATCH,
        } satisfies FloodOptions,
      });
      const floodFailed = new Promise<never>((_, reject) => flood.once('error', reject));
      try {
        await Promise.race([new Promise((resolve) => setTimeout(resolve, 1500)), floodFailed]);
        const tookMs: number[] = [];
        for (let probe = 0; probe < 20; probe++) {
          const client = await RawClient.open(node.url, '127.0.0.1');
          const sentAt = performance.now();
          client.write(post(call('eth_chainId')));
          const [answer] = await Promise.race([client.responses(1, 10_000), floodFailed]);
          tookMs.push(performance.now() - sentAt);
          client.destroy();
          expect(JSON.parse(answer!.body)).to.deep.equal({ jsonrpc: '2.0', id: 1, result: CHAIN_ID });
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        flood.postMessage('stop');
        const [floodAnswers] = (await once(flood, 'message')) as [number];
        // The flood was served all along: each of its connections had a batch under way at every probe.
        expect(floodAnswers).to.be.at.least(CONNECTIONS);
        tookMs.sort((a, b) => a - b);
        // Taking a turn of the thread in every iteration, each connection's batch kept a probe
        // waiting behind all of them: 0.4-0.5 s for half the probes, seconds at worst.
        expect(tookMs[10], `probes took ${tookMs.map((ms) => ms.toFixed(0)).join(', ')} ms`).to.be.below(100);
        expect(tookMs[19], `probes took ${tookMs.map((ms) => ms.toFixed(0)).join(', ')} ms`).to.be.below(300);
      } finally {
        await flood.terminate();
        await node.stop();
      }
    });
  }
});

describe('HTTP connection caps', () => {
  /** A connection to `url` from `localAddress`, once the server has had time to keep or close it. */
  const openSettled = async (url: string, localAddress: string) => {
    const client = await RawClient.open(url, localAddress);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return client;
  };
  /** eth_chainId's result asked from `localAddress`, or undefined when the node closes the connection. */
  const chainIdFrom = async (url: string, localAddress: string): Promise<unknown> => {
    const client = await RawClient.open(url, localAddress);
    client.write(post(call('eth_chainId')));
    await Promise.race([client.responses(1, 5000).catch(() => undefined), client.ended]);
    client.destroy();
    const [answer] = parseResponses(client.received);
    return answer === undefined ? undefined : (JSON.parse(answer.body) as { result: unknown }).result;
  };

  it('keeps max_connections_per_ip of 20,000 half-open sockets and serves other clients at once', async function () {
    this.timeout(180_000);
    // A head timeout (60 s) longer than the test: the sockets kept stay open until it ends.
    const node = await startTestNode({
      plugins: ['eth-query'],
      config: { evm: { max_connections_per_ip: 100, read_timeout: 120_000 } },
    });
    const rss = process.memoryUsage().rss;
    try {
      let held: RawClient[] = [];
      // In waves, so that this process never holds more sockets than `ulimit -n` allows: the
      // node closes each one over the cap at once.
      for (let wave = 0; wave < 80; wave++) {
        const clients = await Promise.all(Array.from({ length: 250 }, () => RawClient.open(node.url)));
        clients.forEach((client, index) => {
          // Half of them send part of a request line, half nothing.
          if (index % 2 === 1) client.write('POST / HT');
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
        held = [...held, ...clients].filter((client) => !client.closed);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      held = held.filter((client) => !client.closed);
      expect(held).to.have.length(100);
      expect(held.every((client) => client.received === '')).to.equal(true);

      // A client from another address is served at once.
      const started = performance.now();
      expect(await chainIdFrom(node.url, '127.0.0.2')).to.equal(CHAIN_ID);
      expect(performance.now() - started).to.be.below(1000);

      // Once they close, 127.0.0.1 is served again, and blocks kept coming. (Asked on raw
      // sockets: fetch keeps reconnecting to a port that closes it at once.)
      for (const client of held) client.destroy();
      const deadline = Date.now() + 5000;
      while ((await chainIdFrom(node.url, '127.0.0.1')) !== CHAIN_ID) expect(Date.now()).to.be.below(deadline);
      await expectServing(node);
      expect(process.memoryUsage().rss - rss).to.be.below(300 * MB);
    } finally {
      await node.stop();
    }
  });

  it('answers 408 to connections that send no head, or part of one, within read_timeout', async () => {
    const node = await startTestNode({ plugins: ['eth-query'], config: { evm: { read_timeout: 1000 } } });
    try {
      const silent = await RawClient.open(node.url);
      const partial = await RawClient.open(node.url);
      partial.write('POST / HT');
      const started = performance.now();
      expect(await onlyAnswer(silent)).to.equal(408);
      expect(await onlyAnswer(partial)).to.equal(408);
      expect(performance.now() - started).to.be.within(900, 5000);
    } finally {
      await node.stop();
    }
  });

  it('caps the WebSocket port per address too, and answers plain HTTP there with 426', async () => {
    const node = await startTestNode({ plugins: ['eth-query'], config: { evm: { max_connections_per_ip: 2 } } });
    try {
      const open = (localAddress: string) =>
        new Promise<WebSocket | Error>((resolve) => {
          const socket = new WebSocket(node.wsUrl, { localAddress });
          socket.once('open', () => resolve(socket));
          socket.once('error', resolve);
        });
      const sockets = [await open('127.0.0.1'), await open('127.0.0.1'), await open('127.0.0.1')];
      expect(sockets.map((socket) => socket instanceof WebSocket)).to.deep.equal([true, true, false]);
      const other = (await open('127.0.0.2')) as WebSocket;
      other.send(call('eth_chainId'));
      const [answer] = (await once(other, 'message')) as [Buffer];
      expect(JSON.parse(answer.toString())).to.deep.equal({ jsonrpc: '2.0', id: 1, result: CHAIN_ID });
      for (const socket of [...sockets, other]) if (socket instanceof WebSocket) socket.close();

      const plain = await RawClient.open(node.wsUrl.replace('ws:', 'http:'), '127.0.0.3');
      plain.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
      const [upgradeRequired] = await plain.responses(1);
      expect(upgradeRequired!.status).to.equal(426);
      expect(upgradeRequired!.body).to.equal('Upgrade Required');
      plain.destroy();
    } finally {
      await node.stop();
    }
  });

  describe('an IPv6 host, counted by its /64', () => {
    /** Addresses `.ci/run` puts on the loopback interface: three of one /64, one of the next. */
    const SAME_NETWORK = ['fd00:e7::a', 'fd00:e7::b', 'fd00:e7::c'];
    const OTHER_NETWORK = 'fd00:e7:0:1::a';
    let node: TestNode;
    let url: string;

    before(async function () {
      const local = new Set(Object.values(networkInterfaces()).flatMap((nics) => nics!.map((nic) => nic.address)));
      // Like the balancer tests' nginx: without the addresses (CI adds them, as root) there is no host to be.
      if (![...SAME_NETWORK, OTHER_NETWORK].every((address) => local.has(address))) this.skip();
      node = await startTestNode({
        plugins: ['eth-query', 'filters'],
        config: { evm: { listen_address: '::', max_connections_per_ip: 2, max_filters: 4, max_client_share: 0.25 } },
      });
      url = node.url.replace('127.0.0.1', '[::1]');
    });
    after(() => node?.stop());

    it('closes a connection from a third address of a /64 holding max_connections_per_ip, not from the next /64', async () => {
      const clients = [];
      for (const address of [...SAME_NETWORK, OTHER_NETWORK]) clients.push(await openSettled(url, address));
      expect(clients.map((client) => client.closed)).to.deep.equal([false, false, true, false]);
      for (const client of clients) client.destroy();
      await Promise.all(clients.map((client) => client.ended));
    });

    it("gives a /64 one client's share of the filters, whichever address asks", async () => {
      const newFilterFrom = async (localAddress: string) => {
        const client = await RawClient.open(url, localAddress);
        client.write(post(call('eth_newBlockFilter')));
        const [answer] = await client.responses(1);
        client.destroy();
        return JSON.parse(answer!.body) as { result?: string; error?: { code: number } };
      };
      // max_filters 4 at a share of 0.25: one filter a client.
      expect((await newFilterFrom(SAME_NETWORK[0]!)).result).to.match(/^0x[0-9a-f]+$/);
      expect((await newFilterFrom(SAME_NETWORK[1]!)).error?.code).to.equal(-32005);
      expect((await newFilterFrom(OTHER_NETWORK)).result).to.match(/^0x[0-9a-f]+$/);
    });
  });

  describe('ConnectionLimits', () => {
    let server: Server;
    let url: string;
    before(async () => {
      server = createNetServer();
      new ConnectionLimits({ maxOpen: 3, maxPerAddress: 2 }).attach(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise((resolve) => server.close(resolve)));

    it('closes at once connections over the cap per address, then over the total cap', async () => {
      const clients = [];
      for (const address of ['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.2', '127.0.0.3'])
        clients.push(await openSettled(url, address));
      expect(clients.map((client) => client.closed)).to.deep.equal([false, false, true, false, true]);
      // A closed connection makes room again.
      clients[0]!.destroy();
      await clients[0]!.ended;
      const again = await openSettled(url, '127.0.0.3');
      expect(again.closed).to.equal(false);
      for (const client of [...clients, again]) client.destroy();
    });
  });
});

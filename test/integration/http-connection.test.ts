import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { fixturePlugin } from '../support/plugins/paths.js';

const CHAIN_ID = '0xae3f2';

function call(method: string, params: unknown[] = [], id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

function post(body: string, extraHeaders = ''): string {
  return (
    `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}\r\n${body}`
  );
}

/** A raw TCP client: HTTP/1.1 written by hand, everything read kept as text. */
class RawClient {
  readonly #socket: Socket;
  #received = '';
  readonly ended: Promise<void>;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => (this.#received += text));
    this.ended = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  static open(url: string): Promise<RawClient> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  write(text: string): void {
    this.#socket.write(text);
  }

  /** Waits until `count` complete responses have arrived and returns them, with bodies. */
  async responses(count: number, timeoutMs = 5000): Promise<RawResponse[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponses(this.#received);
      if (parsed.length >= count) return parsed;
      if (Date.now() > deadline) throw new Error(`got ${parsed.length} of ${count} responses: ${this.#received}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  destroy(): void {
    this.#socket.destroy();
  }
}

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Responses with a Content-Length (the node always sends one), in order. */
function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) return responses;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(statusLine!.split(' ')[1]);
    const length = Number(headers['content-length'] ?? 0);
    if (rest.length < headEnd + 4 + length) return responses;
    responses.push({ status, headers, body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
}

function resultOf(response: RawResponse): unknown {
  return (JSON.parse(response.body) as { result: unknown }).result;
}

describe('HTTP connections', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      plugins: ['eth-query', fixturePlugin('fixture-rpc')],
      config: { evm: { read_timeout: 500, idle_timeout: 700 } },
    });
  });
  after(() => node.stop());

  it('answers pipelined POSTs in request order, a slow call first', async () => {
    const client = await RawClient.open(node.url);
    client.write(post(call('fixture_sleep', ['0x64'], 1)) + post(call('eth_chainId', [], 2)));
    const [slow, fast] = await client.responses(2);
    expect(JSON.parse(slow!.body)).to.deep.equal({ jsonrpc: '2.0', id: 1, result: 'awake' });
    expect(JSON.parse(fast!.body)).to.deep.equal({ jsonrpc: '2.0', id: 2, result: CHAIN_ID });
    expect(slow!.headers.date).to.match(/ GMT$/);
    client.destroy();
  });

  it('reads a pipelined request whose first bytes come in the same read as the request before it', async () => {
    const client = await RawClient.open(node.url);
    const second = post(call('eth_chainId', [], 2));
    client.write(post(call('eth_chainId', [], 1)) + second.slice(0, 12));
    await client.responses(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.write(second.slice(12));
    const [, response] = await client.responses(2);
    expect(JSON.parse(response!.body)).to.deep.equal({ jsonrpc: '2.0', id: 2, result: CHAIN_ID });
    client.destroy();
  });

  it('reads a request that arrives in pieces: the request line, headers and body split anywhere', async () => {
    const client = await RawClient.open(node.url);
    const text = post(call('eth_chainId'));
    for (const piece of [text.slice(0, 2), text.slice(2, 30), text.slice(30, text.length - 5), text.slice(-5)]) {
      client.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [response] = await client.responses(1);
    expect(response!.status).to.equal(200);
    expect(resultOf(response!)).to.equal(CHAIN_ID);
    client.destroy();
  });

  it('reads a chunked request body', async () => {
    const client = await RawClient.open(node.url);
    const body = call('eth_chainId');
    const head =
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
    const chunks = [body.slice(0, 10), body.slice(10)].map((part) => `${part.length.toString(16)}\r\n${part}\r\n`);
    client.write(`${head}${chunks.join('')}0\r\n\r\n`);
    const [response] = await client.responses(1);
    expect(resultOf(response!)).to.equal(CHAIN_ID);
    client.destroy();
  });

  it('answers Expect: 100-continue with 100 before the body is sent', async () => {
    const client = await RawClient.open(node.url);
    const body = call('eth_chainId');
    client.write(
      `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    const [interim] = await client.responses(1);
    expect(interim!.status).to.equal(100);
    client.write(body);
    const [, response] = await client.responses(2);
    expect(resultOf(response!)).to.equal(CHAIN_ID);
    client.destroy();
  });

  it('serves a GET on a connection that posted before, and posts after it', async () => {
    const client = await RawClient.open(node.url);
    client.write(post(call('eth_chainId', [], 1)));
    await client.responses(1);
    client.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const [, health] = await client.responses(2);
    expect(health!.status).to.equal(200);
    expect(JSON.parse(health!.body)).to.deep.equal({ status: 'ok' });
    client.write(post(call('eth_chainId', [], 3)));
    const [, , after] = await client.responses(3);
    expect(JSON.parse(after!.body)).to.deep.equal({ jsonrpc: '2.0', id: 3, result: CHAIN_ID });
    client.destroy();
  });

  it('closes after the answer when the client says Connection: close, or speaks HTTP/1.0', async () => {
    const client = await RawClient.open(node.url);
    client.write(post(call('eth_chainId'), 'Connection: close\r\n'));
    const [response] = await client.responses(1);
    expect(response!.headers.connection).to.equal('close');
    await client.ended;

    const old = await RawClient.open(node.url);
    const body = call('eth_chainId');
    old.write(`POST / HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(resultOf((await old.responses(1))[0]!)).to.equal(CHAIN_ID);
    await old.ended;
  });

  it('answers a malformed request with 400 and oversized headers with 431, and closes', async () => {
    const client = await RawClient.open(node.url);
    client.write('POST / HTTP/1.1\r\nContent-Length: nope\r\nContent-Length: 7\r\n\r\n');
    const [bad] = await client.responses(1);
    expect(bad!.status).to.equal(400);
    await client.ended;

    const large = await RawClient.open(node.url);
    large.write(`POST / HTTP/1.1\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    const [tooLarge] = await large.responses(1);
    expect(tooLarge!.status).to.equal(431);
    await large.ended;
  });

  it('answers a request not received whole within read_timeout with 408, and closes', async () => {
    const client = await RawClient.open(node.url);
    const started = Date.now();
    client.write(post(call('eth_chainId')).slice(0, 60));
    const [response] = await client.responses(1, 3000);
    expect(response!.status).to.equal(408);
    expect(Date.now() - started).to.be.within(400, 2000);
    await client.ended;
  });

  it('closes a connection idle for idle_timeout, and keeps one that is busy', async () => {
    const idle = await RawClient.open(node.url);
    idle.write(post(call('eth_chainId')));
    await idle.responses(1);
    const started = Date.now();
    await idle.ended;
    expect(Date.now() - started).to.be.within(500, 2500);

    const busy = await RawClient.open(node.url);
    busy.write(post(call('fixture_sleep', ['0x4b0'])));
    const [answer] = await busy.responses(1, 3000);
    expect(resultOf(answer!)).to.equal('awake');
    busy.destroy();
  });
});

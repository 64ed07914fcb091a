import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { fixturePlugin } from '../support/plugins/paths.js';
import { call, post, RawClient, type RawResponse } from '../support/raw-http.js';

const CHAIN_ID = '0xae3f2';

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

  it('stops reading a pipelining connection with 64 calls in flight until one is answered', async () => {
    const client = await RawClient.open(node.url);
    // About 200 KiB: node:http reads it in several pieces, and starts every call of a piece it read.
    const count = 2000;
    client.write(Array.from({ length: count }, (_, id) => post(call('fixture_concurrent', ['0x14'], id))).join(''));
    const answers = await client.responses(count, 30_000);
    expect(answers.map((answer) => (JSON.parse(answer.body) as { id: number }).id)).to.deep.equal(
      Array.from({ length: count }, (_, id) => id),
    );
    const peak = Math.max(...answers.map((answer) => Number(resultOf(answer))));
    // Beyond 64, at most the requests of one 64 KiB read.
    expect(peak).to.be.within(64, 64 + Math.ceil(65_536 / post(call('fixture_concurrent', ['0x14'], 0)).length));
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
    expect(JSON.parse(health!.body)).to.deep.include({ status: 'ok', role: 'producer' });
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

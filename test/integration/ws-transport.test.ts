import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { fixtureEvents } from '../support/plugins/shared.js';
import { fixturePlugin } from '../support/plugins/paths.js';
import { rpc } from '../support/rpc-client.js';
import { WsClient } from '../support/ws-client.js';

describe('WebSocket transport', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({
      plugins: ['eth-query', fixturePlugin('fixture-rpc')],
      config: { evm: { max_request_body_bytes: 64 * 1024 } },
    });
  });
  after(() => node.stop());

  it('serves eth_, net_ and web3_ methods', async () => {
    const client = await WsClient.connect(node.wsUrl);
    expect(await client.call('eth_chainId', [], 1)).to.deep.equal({ jsonrpc: '2.0', id: 1, result: '0xae3f2' });
    expect(await client.call('net_version', [], 'v')).to.deep.equal({ jsonrpc: '2.0', id: 'v', result: '713714' });
    expect((await client.call('web3_clientVersion', [], 3)).result).to.match(/^Geth\/linux-x64\/node-\d+\.\d+\.\d+$/);
    client.close();
  });

  it('serves batches and keeps the digits of large ids', async () => {
    const client = await WsClient.connect(node.wsUrl);
    const answer = await client.request(
      '[{"jsonrpc":"2.0","id":98765432109876543210,"method":"eth_chainId"},{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"net_version"}]',
      'batch',
    );
    expect(answer).to.have.length(2);
    expect(answer[1]).to.deep.equal({ jsonrpc: '2.0', id: 2, result: '713714' });
    client.close();
  });

  it('sends a result made of pieces as one message', async () => {
    const client = await WsClient.connect(node.wsUrl);
    expect(await client.call('fixture_pieces', ['0x64'], 1)).to.deep.equal({
      jsonrpc: '2.0',
      id: 1,
      result: Array<string>(100).fill('x'.repeat(4096)),
    });
    client.close();
  });

  it('answers unreadable JSON, or JSON nested too deep, with -32700 and keeps the connection', async () => {
    const client = await WsClient.connect(node.wsUrl);
    for (const unreadable of ['{"jsonrpc":', `[${'['.repeat(20_000)}${']'.repeat(20_000)}]`]) {
      expect(await client.request(unreadable, null)).to.deep.equal({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'parse error' },
      });
    }
    expect((await client.call('eth_chainId')).result).to.equal('0xae3f2');
    client.close();
  });

  it('reads messages over 256 KiB sent together, each by its own text, and refuses too many members with -32700', async () => {
    // The node of the other tests takes 64 KiB at most.
    const own = await startTestNode();
    const client = await WsClient.connect(own.wsUrl);
    const long = (id: number) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [String(id).repeat(1_000_000)] });
    const answers = await Promise.all([1, 2, 3, 4].map((id) => client.request(long(id), id)));
    expect(answers).to.deep.equal(
      [1, 2, 3, 4].map((id) => ({
        jsonrpc: '2.0',
        id,
        error: { code: -32602, message: 'too many arguments, want at most 0' },
      })),
    );
    const members = Array.from({ length: 20_001 }, (_, index) => `"key${index}":${'1'.repeat(10)}`).join(',');
    expect(
      await client.request(`{"jsonrpc":"2.0","id":5,"method":"eth_chainId","x":{${members}}}`, null),
    ).to.deep.equal({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    expect((await client.call('eth_chainId')).result).to.equal('0xae3f2');
    client.close();
    await own.stop();
  });

  it('refuses HTTP-only namespaces with -32601', async () => {
    const client = await WsClient.connect(node.wsUrl);
    expect((await client.call('debug_ping')).error).to.deep.equal({
      code: -32601,
      message: 'the debug namespace is HTTP-only: call debug_ping over HTTP',
    });
    expect((await rpc(node.url, 'debug_ping')).result).to.equal('pong');
    client.close();
  });

  it('keeps state per connection, pushes notifications on it, and tells the plugin when it closes', async () => {
    const first = await WsClient.connect(node.wsUrl);
    const second = await WsClient.connect(node.wsUrl);
    expect((await first.call('fixture_subscribe', [], 1)).result).to.equal('0x1');
    expect((await first.call('fixture_subscribe', [], 2)).result).to.equal('0x2');
    expect((await second.call('fixture_subscribe', [], 1)).result).to.equal('0x1');
    expect(await first.notificationsAtLeast(2)).to.deep.equal([
      { jsonrpc: '2.0', method: 'fixture_subscription', params: { subscription: '0x1', result: 'hello' } },
      { jsonrpc: '2.0', method: 'fixture_subscription', params: { subscription: '0x2', result: 'hello' } },
    ]);
    const closesBefore = fixtureEvents.filter((event) => event.startsWith('closed:')).length;
    first.close();
    await first.closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fixtureEvents.filter((event) => event.startsWith('closed:')).length).to.equal(closesBefore + 2);
    second.close();
  });

  it("aborts the signal of a connection's calls still running when it closes", async () => {
    const client = await WsClient.connect(node.wsUrl);
    const eventsBefore = fixtureEvents.length;
    void client.call('fixture_untilAborted', [], 1).catch(() => undefined);
    void client.call('fixture_untilAborted', [], 2).catch(() => undefined);
    // Both calls are running once a later call on the connection is answered.
    expect((await client.call('eth_chainId', [], 3)).result).to.equal('0xae3f2');
    expect(fixtureEvents.slice(eventsBefore)).to.deep.equal([]);
    client.close();
    await client.closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fixtureEvents.slice(eventsBefore)).to.deep.equal([
      'aborted:the client closed its connection',
      'aborted:the client closed its connection',
    ]);
  });

  it('refuses WebSocket-only methods over HTTP with "notifications not supported"', async () => {
    expect((await rpc(node.url, 'fixture_subscribe')).error).to.deep.equal({
      code: -32601,
      message: 'notifications not supported',
    });
  });

  it('stops reading a connection with 64 messages in flight until one is answered', async () => {
    const client = await WsClient.connect(node.wsUrl);
    // Sent at once: ws reads them in pieces, and starts every call of a piece it read.
    const ids = Array.from({ length: 2000 }, (_, id) => id);
    const answers = await Promise.all(ids.map((id) => client.call('fixture_concurrent', ['0x14'], id)));
    expect(answers.map((answer: { id: number }) => answer.id)).to.deep.equal(ids);
    const peak = Math.max(...answers.map((answer: { result: number }) => answer.result));
    // Beyond 64, at most the messages of one 64 KiB read (6 bytes of frame header each).
    const smallest =
      JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'fixture_concurrent', params: ['0x14'] }).length + 6;
    expect(peak).to.be.within(64, 64 + Math.ceil(65_536 / smallest));
    client.close();
  });

  it('disconnects a client that does not read rather than buffering without bound', async () => {
    const client = await WsClient.connect(node.wsUrl);
    // The client stops reading: everything the node sends piles up in its buffers.
    const tcp = (client.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    tcp.pause();
    const floodsBefore = fixtureEvents.filter((event) => event.startsWith('flood:')).length;
    client.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fixture_flood', params: ['0x40'] }));
    while (fixtureEvents.filter((event) => event.startsWith('flood:')).length === floodsBefore) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Reading again, the client finds the connection cut.
    tcp.resume();
    expect((await client.closed).code).to.equal(1006);
    const delivered = Number(fixtureEvents.findLast((event) => event.startsWith('flood:'))!.slice('flood:'.length));
    expect(delivered).to.be.above(15).and.below(64);
    const again = await WsClient.connect(node.wsUrl);
    expect((await again.call('eth_chainId')).result).to.equal('0xae3f2');
    again.close();
  });

  it('closes the connection with 1009 when a frame is over the limit, and stays up', async () => {
    const client = await WsClient.connect(node.wsUrl);
    client.socket.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: ['a'.repeat(70 * 1024)] }),
    );
    expect((await client.closed).code).to.equal(1009);
    const again = await WsClient.connect(node.wsUrl);
    expect((await again.call('eth_chainId')).result).to.equal('0xae3f2');
    again.close();
  });

  it('closes connections with 1001 when the node stops', async () => {
    const own = await startTestNode();
    const client = await WsClient.connect(own.wsUrl);
    expect((await client.call('eth_chainId')).result).to.equal('0xae3f2');
    await own.stop();
    expect(await client.closed).to.deep.equal({ code: 1001, reason: 'server shutting down' });
  });

  it('refuses origins outside ws_origins', async () => {
    const own = await startTestNode({ config: { evm: { ws_origins: ['https://good.example'] } } });
    try {
      const good = await WsClient.connect(own.wsUrl, { origin: 'https://good.example' });
      good.close();
      const refused = await WsClient.connect(own.wsUrl, { origin: 'https://evil.example' }).then(
        () => 'accepted',
        (error: Error) => error.message,
      );
      expect(refused).to.equal('Unexpected server response: 401');
    } finally {
      await own.stop();
    }
  });
});

import { expect } from 'chai';
import { devAccounts } from '@evmnode/core';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { nativeSigner, signNative } from '../support/native-kit.js';
import { RawClient } from '../support/raw-http.js';
import { WsClient } from '../support/ws-client.js';

const CHAIN_ID = 'sei-chain';
const NEW_BLOCK_QUERY = "tm.event='NewBlock'";

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`'s value, or 'pending' when it has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([promise, sleepMs(ms).then(() => 'pending' as const)]);
}

function wsUrl(node: TestNode): string {
  return `${node.nativeUrl.replace(/^http/, 'ws')}/websocket`;
}

/** A `subscribe` to new blocks and its answer (events then come with the same id). */
function subscribe(client: WsClient, id: string): Promise<any> {
  const request = { jsonrpc: '2.0', id, method: 'subscribe', params: { query: NEW_BLOCK_QUERY } };
  return client.request(JSON.stringify(request), id);
}

/** The answers (status lines) in what a raw client received. */
function answersIn(received: string): number {
  return received.split('HTTP/1.1 ').length - 1;
}

async function expectStatusServed(node: TestNode): Promise<void> {
  const response = await fetch(`${node.nativeUrl}/status`);
  const body = (await response.json()) as any;
  expect(body.result.node_info.network).to.equal(CHAIN_ID);
}

describe('native gateway: pipelined requests on one connection', function () {
  this.timeout(60_000);
  const COMMIT_TIMEOUT_MS = 3000;
  let node: TestNode;

  before(async () => {
    node = await startTestNode({
      plugins: ['native-gateway'],
      // No block comes, so that broadcast_tx_commit holds the connection's turn until its timeout.
      config: {
        consensus: { block_time: '1h' },
        plugins: { 'native-gateway': { broadcast_commit_timeout: COMMIT_TIMEOUT_MS } },
      },
    });
  });
  after(() => node.stop());

  it('stops reading a connection with 64 requests in flight, and answers them all once they are served', async () => {
    const signer = await nativeSigner(devAccounts(10)[7]!.privateKey);
    const tx = await signNative(signer, {
      messages: [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: { fromAddress: signer.address, toAddress: signer.address, amount: [{ denom: 'usei', amount: '1' }] },
        },
      ],
      sequence: 0n,
      accountNumber: 7n,
      fee: [{ denom: 'usei', amount: '4000' }],
    });
    const slow = `GET /broadcast_tx_commit?tx=0x${Buffer.from(tx).toString('hex')} HTTP/1.1\r\nHost: gateway\r\n\r\n`;
    // 8 KB a request: the bytes the kernel buffers hold are a few thousand requests, not the 12,500 offered.
    const status = `GET /status HTTP/1.1\r\nHost: gateway\r\nX-Padding: ${'a'.repeat(8000)}\r\n\r\n`;
    const offered = 12_500;
    const client = await RawClient.open(node.nativeUrl);
    try {
      client.write(slow);
      let left = offered;
      const written = await client.writeUntilStalled(() => {
        if (left === 0) return undefined;
        left -= 100;
        return status.repeat(100);
      }, 1000);
      // The gateway stopped reading behind broadcast_tx_commit; it used to read (and queue) every request.
      expect(written).to.be.below(offered * status.length);
      const count = written / status.length;
      // Its answers are chunked: counted by their status lines.
      const deadline = Date.now() + 30_000;
      while (answersIn(client.received) < 1 + count && Date.now() < deadline) await sleepMs(20);
      expect(
        client.received
          .split('HTTP/1.1 ')
          .slice(1)
          .map((answer) => answer.slice(0, 3)),
      ).to.deep.equal(['500', ...Array(count).fill('200')]);
      expect(client.received).to.include('"data":"timed out waiting for tx to be included in a block"');
      expect(client.received.split(`"network":"${CHAIN_ID}"`).length - 1).to.equal(count);
      expect(client.closed).to.equal(false);
    } finally {
      client.destroy();
    }
  });

  it('answers 20,000 pipelined GET /status on one connection, every one, without closing it', async () => {
    const sent = 20_000;
    const client = await RawClient.open(node.nativeUrl);
    try {
      client.write('GET /status HTTP/1.1\r\nHost: gateway\r\n\r\n'.repeat(sent));
      const deadline = Date.now() + 40_000;
      while (answersIn(client.received) < sent && !client.closed && Date.now() < deadline) await sleepMs(50);
      expect(client.closed).to.equal(false);
      expect(answersIn(client.received)).to.equal(sent);
      expect(client.received.split(`"network":"${CHAIN_ID}"`).length - 1).to.equal(sent);
    } finally {
      client.destroy();
    }
  });

  it('closes a connection that has more than 2,048 requests in flight', async () => {
    // 26 bytes a request: one 64 KiB read holds about 2,500.
    const tiny = 'GET / HTTP/1.1\r\nHost:a\r\n\r\n';
    const sent = 20_000;
    const client = await RawClient.open(node.nativeUrl);
    try {
      client.write(tiny.repeat(sent));
      expect(await within(client.ended, 10_000)).to.equal(undefined);
      expect(answersIn(client.received)).to.be.below(sent);
    } finally {
      client.destroy();
    }
    await expectStatusServed(node);
  });
});

describe('native gateway: /websocket places', function () {
  this.timeout(60_000);
  let node: TestNode;
  const clients: WsClient[] = [];

  before(async () => {
    node = await startTestNode({ plugins: ['native-gateway'], config: { consensus: { block_time: 100 } } });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.socket.terminate();
    // Time for the gateway to see them closed.
    await sleepMs(200);
  });
  after(() => node.stop());

  async function open(count: number, localAddress: string): Promise<WsClient[]> {
    const opened = await Promise.all(
      Array.from({ length: count }, () => WsClient.connect(wsUrl(node), {}, localAddress)),
    );
    clients.push(...opened);
    return opened;
  }

  it('lets a client subscribe while another address holds 100 connections that never subscribe', async () => {
    const idle = await open(100, '127.0.0.1');
    // The address's 101st connection: max_connections_per_ip (100) closes it.
    const over = await WsClient.connect(wsUrl(node), {}, '127.0.0.1').then(
      (client) => {
        clients.push(client);
        return 'open';
      },
      () => 'refused',
    );
    expect(over).to.equal('refused');
    const [subscriber] = await open(1, '127.0.0.2');
    expect(await subscribe(subscriber!, 'blocks')).to.deep.equal({ jsonrpc: '2.0', id: 'blocks', result: {} });
    expect(idle.filter((client) => client.socket.readyState === client.socket.OPEN).length).to.equal(100);
  });

  it('counts the subscribing connections against max_subscription_clients (100), not the others', async () => {
    const subscribers = await open(100, '127.0.0.1');
    const answers = await Promise.all(subscribers.map((client, index) => subscribe(client, `s${index}`)));
    expect(answers.map((answer) => answer.result)).to.deep.equal(Array(100).fill({}));
    const [late] = await open(1, '127.0.0.2');
    expect(await subscribe(late!, 'late')).to.deep.equal({
      jsonrpc: '2.0',
      id: 'late',
      error: { code: -32603, message: 'Internal error', data: 'max_subscription_clients 100 reached' },
    });
    // Other methods are still served to it.
    expect((await late!.call('status', [], 'status')).result.node_info.network).to.equal(CHAIN_ID);
    // An unsubscribed connection gives its place back.
    const leaving = await subscribers[0]!.call('unsubscribe_all', [], 'leave');
    expect(leaving).to.deep.equal({ jsonrpc: '2.0', id: 'leave', result: {} });
    expect(await subscribe(late!, 'late again')).to.deep.equal({ jsonrpc: '2.0', id: 'late again', result: {} });
  });
});

describe('native gateway: idle /websocket connections', function () {
  this.timeout(60_000);
  const IDLE_TIMEOUT_MS = 400;

  it('closes a connection without a subscription after idle_timeout, but not a subscriber', async () => {
    const node = await startTestNode({
      plugins: ['native-gateway'],
      config: { consensus: { block_time: 100 }, evm: { idle_timeout: IDLE_TIMEOUT_MS } },
    });
    const [idle, subscriber] = await Promise.all([
      WsClient.connect(wsUrl(node), {}, '127.0.0.1'),
      WsClient.connect(wsUrl(node), {}, '127.0.0.1'),
    ]);
    try {
      expect(await subscribe(subscriber, 'blocks')).to.deep.equal({ jsonrpc: '2.0', id: 'blocks', result: {} });
      expect(await within(idle.closed, 10_000)).to.deep.equal({ code: 1000, reason: 'idle' });
      expect(await within(subscriber.closed, 3 * IDLE_TIMEOUT_MS)).to.equal('pending');
      // Once it unsubscribes, it is idle as any other.
      expect(await subscriber.call('unsubscribe_all', [], 'leave')).to.deep.equal({
        jsonrpc: '2.0',
        id: 'leave',
        result: {},
      });
      expect(await within(subscriber.closed, 10_000)).to.deep.equal({ code: 1000, reason: 'idle' });
    } finally {
      idle.socket.terminate();
      subscriber.socket.terminate();
      await node.stop();
    }
  });
});

import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import WebSocket from 'ws';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { rpc } from '../support/rpc-client.js';

const LARGE_RETURN = '0x00000000000000000000000000000000000000aa';
/** `PUSH3 0x100000 PUSH1 0 RETURN`: returns 1 MiB of zeros, answered as 2 MiB of hex. */
const RETURNS_ONE_MIB = '0x621000006000f3';

/** Every call of a batch runs, none is refused as 'server busy': answers are of one size. */
const ROOMY_SIMULATIONS = { max_concurrent_simulation_calls: 8 };

/** A batch of `calls` eth_calls answered with 2 MiB each. */
function largeBatch(calls: number): string {
  const call = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'eth_call',
    params: [{ to: LARGE_RETURN }, 'latest', { [LARGE_RETURN]: { code: RETURNS_ONE_MIB } }],
  });
  return JSON.stringify(Array.from({ length: calls }, (_, id) => call(id)));
}

/** A client that sends `body` and does not read its answer until `read()`; resolves with the bytes it then got. */
function lazyClient(url: string, body: string): { socket: Socket; read(): Promise<number> } {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.pause();
  return {
    socket,
    read: () =>
      new Promise((resolve) => {
        let received = 0;
        socket.on('data', (chunk: Buffer) => (received += chunk.length));
        socket.on('close', () => resolve(received));
        // A connection the node kept open is read whole: it is done once the answer, begun, stops
        // coming (a batch may take over a second to start answering on a busy machine).
        let last = -1;
        const idle = setInterval(() => {
          if (received > 0 && received === last) {
            clearInterval(idle);
            socket.destroy();
          }
          last = received;
        }, 500);
        socket.once('close', () => clearInterval(idle));
        socket.resume();
      }),
  };
}

/** Bytes of a whole answer to largeBatch(calls): headers and body. */
async function wholeAnswerBytes(url: string, calls: number): Promise<number> {
  const client = lazyClient(url, largeBatch(calls));
  return client.read();
}

describe('answers held for clients', function () {
  this.timeout(60_000);
  let node: TestNode;
  afterEach(() => node?.stop());

  it('closes the connections holding the most unread once all clients together pass max_held_answer_bytes', async () => {
    node = await startTestNode({
      plugins: ['eth-query'],
      config: { evm: { ...ROOMY_SIMULATIONS, max_held_answer_bytes: 32 * 1024 * 1024 } },
    });
    const whole = await wholeAnswerBytes(node.url, 8);
    expect(whole).to.be.greaterThan(16 * 1024 * 1024);
    // Eight clients that leave about 16 MB each unread: their answers would hold some 100 MB.
    const lazy = Array.from({ length: 8 }, () => lazyClient(node.url, largeBatch(8)));
    await sleep(4000);
    // Meanwhile the node serves others.
    expect((await rpc(node.url, 'eth_chainId')).result).to.equal('0xae3f2');
    const received = await Promise.all(lazy.map((client) => client.read()));
    const cut = received.filter((bytes) => bytes < whole).length;
    // At most two such answers fit within 32 MiB: the others were cut short.
    expect(cut).to.be.at.least(6);
    expect(received.filter((bytes) => bytes === whole).length).to.equal(8 - cut);
  });

  it('closes an HTTP connection whose answer is still unwritten write_timeout after its request', async () => {
    node = await startTestNode({
      plugins: ['eth-query'],
      config: { evm: { ...ROOMY_SIMULATIONS, write_timeout: '2s' } },
    });
    const whole = await wholeAnswerBytes(node.url, 8);
    const patient = lazyClient(node.url, largeBatch(8));
    const late = lazyClient(node.url, largeBatch(8));
    await sleep(1000);
    expect(await patient.read()).to.equal(whole);
    await sleep(2000);
    // Only what the kernel's buffers took before the deadline arrives.
    expect(await late.read()).to.be.lessThan(whole);
  });

  it('closes a WebSocket connection whose unread answers leave a batch no room', async () => {
    node = await startTestNode({
      plugins: ['eth-query'],
      config: { evm: { ...ROOMY_SIMULATIONS, max_held_answer_bytes: 24 * 1024 * 1024 } },
    });
    const ws = new WebSocket(node.wsUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const messages: number[] = [];
    ws.on('message', (data: Buffer) => messages.push(data.length));
    ws.on('error', () => {});
    const closed = new Promise<number>((resolve) => ws.once('close', resolve));
    // The client stops reading: most of the first answer (16 MB) waits in the node.
    const raw = (ws as unknown as { _socket: Socket })._socket;
    raw.pause();
    ws.send(largeBatch(8));
    await sleep(1500);
    // The second batch's answers need room: the connection holding the first is closed for it.
    ws.send(largeBatch(8));
    await sleep(2000);
    raw.resume();
    // Closed without a close frame, and the first answer never arrived whole.
    expect(await closed).to.equal(1006);
    expect(messages).to.deep.equal([]);
    expect((await rpc(node.url, 'eth_chainId')).result).to.equal('0xae3f2');
  });
});

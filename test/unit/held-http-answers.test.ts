import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { HeldAnswers } from '@evmnode/core';

const ANSWER = Buffer.alloc(512 * 1024, 'a');
const REQUEST = 'GET / HTTP/1.1\r\nHost: localhost\r\n\r\n';

/** A node:http server whose every answer the ledger guards, as the node's HTTP transport does. */
async function guardedServer(held: HeldAnswers): Promise<{ server: Server; port: number; closed: Promise<void> }> {
  let socketClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (socketClosed = resolve));
  const server = createServer((req, res) => {
    res.end(ANSWER);
    held.guardHttpAnswer(res, req.socket, Date.now() + 60_000);
  });
  server.on('connection', (socket: Socket) => socket.once('close', () => socketClosed()));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port, closed };
}

describe('HTTP answers held for a client that goes away', () => {
  it('counts none of them once its connection closes, those node:http queued behind the first included', async () => {
    const held = new HeldAnswers(1024 * 1024 * 1024);
    const { server, port, closed } = await guardedServer(held);
    const client = connect(port, '127.0.0.1');
    client.on('error', () => {});
    await once(client, 'connect');
    client.pause();
    // Twenty pipelined answers of 512 KiB the client never reads: the kernel takes a few, node:http
    // writes one, and queues the rest.
    client.write(REQUEST.repeat(20));
    const deadline = Date.now() + 10_000;
    while (held.total < 8 * ANSWER.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(held.total).to.be.at.least(8 * ANSWER.length);
    client.resetAndDestroy();
    await closed;
    expect(held.total).to.equal(0);
    server.close();
  });
});

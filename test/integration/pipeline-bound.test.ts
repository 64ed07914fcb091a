import { execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { PipelineBound } from '@evmnode/core';

const CONNECTIONS = 20;
const REQUESTS_PER_CONNECTION = 4_000;
/** About 33 bytes: a 64 KiB read holds some 2,000 of them. */
const REQUEST = 'GET /status HTTP/1.1\r\nHost: x\r\n\r\n';
const CHUNK_REQUESTS = Math.ceil((64 * 1024) / REQUEST.length);

/**
 * From another process, so that every connection's bytes wait at once: opens the connections,
 * pipelines the requests on each, reads the answers for `readMs`, then closes them.
 */
const FLOOD = `
const { connect } = require('node:net');
const [port, connections, requests, readMs] = process.argv.slice(1).map(Number);
const request = ${JSON.stringify(REQUEST)}.repeat(requests);
for (let i = 0; i < connections; i++) {
  const socket = connect(port, '127.0.0.1', () => socket.write(request));
  socket.on('data', () => {}).on('error', () => {});
  setTimeout(() => socket.destroy(), readMs);
}
`;

describe('PipelineBound: the requests of one turn of the event loop', function () {
  this.timeout(60_000);
  let server: Server;
  let port: number;
  /** Requests handed over in each turn (a stretch ended by the check phase), and by how many connections. */
  const turns: { requests: number; connections: Set<Socket> }[] = [];
  let current: { requests: number; connections: Set<Socket> } | undefined;

  before(async () => {
    server = createServer((req, res) => {
      if (!pipeline.admit(req, res)) return;
      if (current === undefined) {
        turns.push((current = { requests: 0, connections: new Set() }));
        setImmediate(() => (current = undefined));
      }
      current.requests++;
      current.connections.add(req.socket);
      // Answered one at a time per connection, after the turn, as the native gateway does.
      setImmediate(() => res.end('{}'));
    });
    const pipeline = new PipelineBound(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('hands over a chunk of one connection past its share, the others read in the next turns', async () => {
    await promisify(execFile)(process.execPath, [
      '-e',
      FLOOD,
      String(port),
      String(CONNECTIONS),
      String(REQUESTS_PER_CONNECTION),
      '3000',
    ]);
    // Past its 256th request, a turn reads only the rest of the chunk in hand. Without that share,
    // one turn read every connection's first chunk: some 40,000 requests of 20 connections.
    const busiest = Math.max(...turns.map((turn) => turn.requests));
    expect(busiest, 'requests in the busiest turn').to.be.below(256 + CHUNK_REQUESTS);
    // Every connection was read all the same.
    const connections = new Set(turns.flatMap((turn) => [...turn.connections]));
    expect(connections.size).to.equal(CONNECTIONS);
  });
});

describe('PipelineBound: the requests one client has in flight over all its connections', function () {
  this.timeout(60_000);
  const CLIENT_CONNECTIONS = 60;
  let server: Server;
  let port: number;
  let admitted = 0;
  /** Answers held back: the requests stay in flight until the test lets them go. */
  const held: (() => void)[] = [];

  before(async () => {
    server = createServer((req, res) => {
      if (!pipeline.admit(req, res)) return;
      admitted++;
      held.push(() => res.end('{}'));
    });
    const pipeline = new PipelineBound(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    // Connections stopped with answers held notice no end of their client's.
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  it('stops reading all its connections at 2,048, a chunk past it, and reads them again as answers go', async () => {
    const flood = spawn(process.execPath, [
      '-e',
      FLOOD,
      String(port),
      String(CLIENT_CONNECTIONS),
      String(REQUESTS_PER_CONNECTION),
      '4000',
    ]);
    const exited = new Promise((resolve) => flood.on('exit', resolve));
    // Until every connection has been read as far as it will be.
    while (admitted < 2_048) await sleep(50);
    let seen = -1;
    while (seen !== admitted) {
      seen = admitted;
      await sleep(300);
    }
    // Each connection alone stops at 64 in flight, after the chunk in hand: 60 of them took
    // some 120,000 requests in before.
    expect(admitted, 'requests in flight').to.be.within(2_048, 2_048 + CHUNK_REQUESTS);
    for (const answer of held.splice(0)) answer();
    await sleep(300);
    expect(admitted, 'requests read once answers went').to.be.above(seen + 1_000);
    for (const answer of held.splice(0)) answer();
    await exited;
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { killIfRunning, startNodeProcess, type NodeProcess } from '../support/cli.js';
import { blockNumber, sleep } from '../support/chain-kit.js';

/** The node's open-files limit here: it admits half of it as connections, across its ports. */
const OPEN_FILES = 1024;

describe('connections and the open-files limit', function () {
  this.timeout(60_000);
  let home: string;
  let running: NodeProcess | undefined;
  before(() => {
    home = mkdtempSync(path.join(tmpdir(), 'evmnode-open-files-'));
  });
  after(async () => {
    await killIfRunning(running);
    rmSync(home, { recursive: true, force: true });
  });

  it('admits no more connections than leave descriptors for the chain, and blocks go on', async () => {
    running = await startNodeProcess(['--home', home], OPEN_FILES);
    const port = Number(new URL(running.url).port);
    // From five addresses, each under max_connections_per_ip: only the process's budget refuses them.
    const sockets: Socket[] = [];
    let open = 0;
    for (let index = 0; index < 1100; index++) {
      const socket = connect({ host: '127.0.0.1', port, localAddress: `127.0.0.${2 + (index % 5)}` });
      socket.on('connect', () => open++);
      socket.on('close', () => open--);
      socket.on('error', () => undefined);
      sockets.push(socket);
    }
    await sleep(2000);
    expect(open).to.equal(OPEN_FILES / 2);
    for (const socket of sockets) socket.destroy();
    await sleep(200);
    const height = await blockNumber(running.url);
    await sleep(1500);
    expect(await blockNumber(running.url)).to.be.above(height);
    expect(running.logs.filter((line) => (line.level as number) >= 50)).to.deep.equal([]);
  });
});

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { freePort } from '../support/ports.js';
import { rpc } from '../support/rpc-client.js';
import { sleep } from '../support/chain-kit.js';
import { WsClient } from '../support/ws-client.js';

const CHAIN_ID = '0xae3f2';

/** The documented ports of docs/operations/*: the balancer's HTTP and WebSocket, each follower's HTTP and WebSocket. */
interface Ports {
  readonly '8080': number;
  readonly '8081': number;
  readonly '8548': number;
  readonly '8549': number;
  readonly '8558': number;
  readonly '8559': number;
}

interface RunningBalancer {
  stop(): Promise<void>;
}

/** A balancer of docs/operations.md, run from its documented configuration file. */
interface Balancer {
  readonly name: string;
  readonly config: string;
  /** The Debian package that installs it. */
  readonly debianPackage: string;
  /** Starts it with the documented configuration, the test's ports in place of the documented ones. */
  start(binary: string, ports: Ports): Promise<RunningBalancer>;
  /** Whether it takes out, by its GET /health check, a follower that still runs but answers 503 there. */
  readonly checksHealth: boolean;
}

const documented = (file: string) => fileURLToPath(new URL(`../../../docs/operations/${file}`, import.meta.url));

/** The binary on PATH or in /usr/sbin, undefined when it is not installed. */
function binaryOf(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${name} || ls /usr/sbin/${name}`], { encoding: 'utf8' });
  const binary = found.stdout.trim().split('\n')[0];
  return found.status === 0 && binary ? binary : undefined;
}

/** A configuration file's text with every documented port, as `127.0.0.1:P` or `port P`, replaced. */
function withPorts(file: string, ports: Ports): string {
  let config = readFileSync(file, 'utf8');
  for (const [documentedPort, port] of Object.entries(ports)) {
    config = config
      .replaceAll(`127.0.0.1:${documentedPort}`, `127.0.0.1:${port}`)
      .replaceAll(`port ${documentedPort}`, `port ${port}`);
  }
  return config;
}

/** Runs `binary args` until the balancer answers on its HTTP port; its stop waits for it to exit. */
async function runUntilListening(
  binary: string,
  args: readonly string[],
  httpPort: number,
  cleanup: () => void,
): Promise<RunningBalancer> {
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    cleanup();
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answered = await fetch(`http://127.0.0.1:${httpPort}/health`).then(
      () => true,
      () => false,
    );
    if (answered) return { stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${binary} did not start: ${stderr}`);
    }
    await sleep(50);
  }
}

const NGINX: Balancer = {
  name: 'nginx',
  config: documented('nginx.conf'),
  debianPackage: 'nginx-light',
  checksHealth: false,
  start(binary, ports) {
    const prefix = mkdtempSync(path.join(tmpdir(), 'evmnode-nginx-'));
    mkdirSync(path.join(prefix, 'temp'));
    // nginx started as root runs its worker as nobody, which must reach the temp folders.
    chmodSync(prefix, 0o755);
    chmodSync(path.join(prefix, 'temp'), 0o777);
    writeFileSync(path.join(prefix, 'nginx.conf'), withPorts(this.config, ports));
    const args = ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'];
    return runUntilListening(binary, args, ports['8080'], () => rmSync(prefix, { recursive: true, force: true }));
  },
};

const HAPROXY: Balancer = {
  name: 'HAProxy',
  config: documented('haproxy.cfg'),
  debianPackage: 'haproxy',
  checksHealth: true,
  start(binary, ports) {
    const folder = mkdtempSync(path.join(tmpdir(), 'evmnode-haproxy-'));
    writeFileSync(path.join(folder, 'haproxy.cfg'), withPorts(this.config, ports));
    // -db: in the foreground, so that the test owns the process.
    const args = ['-db', '-f', path.join(folder, 'haproxy.cfg')];
    return runUntilListening(binary, args, ports['8080'], () => rmSync(folder, { recursive: true, force: true }));
  },
};

/** How many `method` calls a node has served, from its Prometheus metrics. */
async function callsServed(node: TestNode, method: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`evmnode_rpc_requests_total{method="${method}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

const portOf = (url: string) => Number(new URL(url).port);

/** The documented ports mapped to the test's: the balancer's own (free now) and the two followers'. */
async function portsFor(first: TestNode, second: TestNode): Promise<Ports> {
  return {
    '8080': await freePort(),
    '8081': await freePort(),
    '8548': portOf(first.url),
    '8549': portOf(second.url),
    '8558': portOf(first.wsUrl),
    '8559': portOf(second.wsUrl),
  };
}

function startFollower(producer: TestNode, config: Record<string, unknown> = {}): Promise<TestNode> {
  return startTestNode({
    profile: 'follower-public',
    config: { follower: { upstream: producer.nativeUrl, upstream_rpc: producer.url, poll_interval: 20 }, ...config },
  });
}

for (const balancer of [NGINX, HAPROXY]) {
  describe(`${balancer.name} in front of two public followers (docs/operations/${path.basename(balancer.config)})`, function () {
    this.timeout(60_000);
    const binary = binaryOf(balancer.name.toLowerCase());
    let producer: TestNode;
    let followers: TestNode[];
    let running: RunningBalancer;
    let ports: Ports;

    before(async function () {
      if (binary === undefined) {
        console.log(
          `    ${balancer.name} is not installed (apt-get install ${balancer.debianPackage}): skipping its balancer test`,
        );
        this.skip();
      }
      producer = await startTestNode({ config: { consensus: { block_time: 100 } } });
      followers = [await startFollower(producer), await startFollower(producer)];
      ports = await portsFor(followers[0]!, followers[1]!);
      running = await balancer.start(binary, ports);
    });

    after(async () => {
      if (binary === undefined) return;
      await running?.stop();
      await Promise.all([...(followers ?? []).map((follower) => follower.stop()), producer?.stop()]);
    });

    it('spreads calls over both followers, and sends them all to one when the other stops', async () => {
      const url = `http://127.0.0.1:${ports['8080']}/`;
      for (let call = 0; call < 40; call++) expect((await rpc(url, 'eth_chainId')).result).to.equal(CHAIN_ID);
      const served = await Promise.all(followers.map((follower) => callsServed(follower, 'eth_chainId')));
      expect(served[0]! + served[1]!).to.equal(40);
      expect(Math.min(...served)).to.be.at.least(10);

      await followers[0]!.stop();
      const before = await callsServed(followers[1]!, 'eth_chainId');
      for (let call = 0; call < 20; call++) expect((await rpc(url, 'eth_chainId')).result).to.equal(CHAIN_ID);
      expect(await callsServed(followers[1]!, 'eth_chainId')).to.equal(before + 20);
    });

    it('passes eth_subscribe through to a follower over WebSocket', async () => {
      const client = await WsClient.connect(`ws://127.0.0.1:${ports['8081']}/`);
      try {
        const { result } = await client.call('eth_subscribe', ['newHeads']);
        const [notification] = await client.notificationsAtLeast(1);
        expect(notification.params.subscription).to.equal(result);
        expect(notification.params.result.number).to.match(/^0x[0-9a-f]+$/);
      } finally {
        client.close();
      }
    });

    if (balancer.checksHealth) {
      it('takes out a follower that runs but answers 503 on GET /health', async () => {
        // Another chain ID: its first block does not replicate, so it stops following and its
        // /health answers 503, while it still answers calls (with its own chain ID).
        const stopped = await startFollower(producer, { node: { role: 'follower', chain_id: 999 } });
        const healthy = await startFollower(producer);
        const checkedPorts = await portsFor(healthy, stopped);
        const checked = await balancer.start(binary!, checkedPorts);
        try {
          // It stops once it has tried block 1, some time after its start.
          const deadline = Date.now() + 10_000;
          while ((await fetch(`${stopped.url}/health`)).status !== 503 && Date.now() < deadline) await sleep(50);
          expect((await fetch(`${stopped.url}/health`)).status).to.equal(503);
          expect((await rpc(stopped.url, 'eth_chainId')).result).to.equal('0x3e7');
          const url = `http://127.0.0.1:${checkedPorts['8080']}/`;
          // Checks run every second and take a server out after two failures.
          await sleep(3_000);
          const before = await callsServed(stopped, 'eth_chainId');
          for (let call = 0; call < 20; call++) expect((await rpc(url, 'eth_chainId')).result).to.equal(CHAIN_ID);
          expect(await callsServed(stopped, 'eth_chainId')).to.equal(before);
        } finally {
          await checked.stop();
          await Promise.all([stopped.stop(), healthy.stop()]);
        }
      });
    }
  });
}

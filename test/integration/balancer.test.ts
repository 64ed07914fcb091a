import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { startTestNode, type TestNode } from '@evmnode/core/testing';
import { freePort } from '../support/ports.js';
import { rpc } from '../support/rpc-client.js';
import { WsClient } from '../support/ws-client.js';

const DOCUMENTED_CONFIG = fileURLToPath(new URL('../../../docs/operations/nginx.conf', import.meta.url));

/** The nginx binary on PATH, undefined when it is not installed. */
function nginxBinary(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], { encoding: 'utf8' });
  const binary = found.stdout.trim().split('\n')[0];
  return found.status === 0 && binary ? binary : undefined;
}

/** How many `method` calls a node has served, from its Prometheus metrics. */
async function callsServed(node: TestNode, method: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`evmnode_rpc_requests_total{method="${method}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** Runs docs/operations/nginx.conf with the test's ports in place of the documented ones. */
async function startNginx(
  binary: string,
  ports: Record<string, number>,
): Promise<{ child: ChildProcess; prefix: string }> {
  const prefix = mkdtempSync(path.join(tmpdir(), 'evmnode-nginx-'));
  mkdirSync(path.join(prefix, 'temp'));
  // nginx started as root runs its worker as nobody, which must reach the temp folders.
  chmodSync(prefix, 0o755);
  chmodSync(path.join(prefix, 'temp'), 0o777);
  let config = readFileSync(DOCUMENTED_CONFIG, 'utf8');
  for (const [documented, port] of Object.entries(ports))
    config = config.replaceAll(`127.0.0.1:${documented}`, `127.0.0.1:${port}`);
  writeFileSync(path.join(prefix, 'nginx.conf'), config);
  const child = spawn(binary, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answered = await fetch(`http://127.0.0.1:${ports['8080']}/health`).then(
      () => true,
      () => false,
    );
    if (answered) return { child, prefix };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('nginx in front of two public followers (docs/operations/nginx.conf)', function () {
  this.timeout(60_000);
  const binary = nginxBinary();
  let producer: TestNode;
  let followers: TestNode[];
  let nginx: { child: ChildProcess; prefix: string };
  let httpPort: number;
  let wsPort: number;

  before(async function () {
    if (binary === undefined) {
      console.log('    nginx is not installed (apt-get install nginx-light): skipping the balancer test');
      this.skip();
    }
    producer = await startTestNode({ config: { consensus: { block_time: 100 } } });
    const follower = () =>
      startTestNode({
        profile: 'follower-public',
        config: { follower: { upstream: producer.nativeUrl, upstream_rpc: producer.url, poll_interval: 20 } },
      });
    followers = [await follower(), await follower()];
    [httpPort, wsPort] = [await freePort(), await freePort()];
    const portOf = (url: string) => Number(new URL(url).port);
    nginx = await startNginx(binary, {
      '8080': httpPort,
      '8081': wsPort,
      '8548': portOf(followers[0]!.url),
      '8549': portOf(followers[1]!.url),
      '8558': portOf(followers[0]!.wsUrl),
      '8559': portOf(followers[1]!.wsUrl),
    });
  });

  after(async () => {
    if (binary === undefined) return;
    nginx.child.kill('SIGTERM');
    await new Promise((resolve) => nginx.child.once('exit', resolve));
    rmSync(nginx.prefix, { recursive: true, force: true });
    await Promise.all([...followers.map((follower) => follower.stop()), producer.stop()]);
  });

  it('spreads calls over both followers, and sends them all to one when the other stops', async () => {
    const url = `http://127.0.0.1:${httpPort}/`;
    for (let call = 0; call < 40; call++) expect((await rpc(url, 'eth_chainId')).result).to.equal('0xae3f2');
    const served = await Promise.all(followers.map((follower) => callsServed(follower, 'eth_chainId')));
    expect(served[0]! + served[1]!).to.equal(40);
    expect(Math.min(...served)).to.be.at.least(10);

    await followers[0]!.stop();
    const before = await callsServed(followers[1]!, 'eth_chainId');
    for (let call = 0; call < 20; call++) expect((await rpc(url, 'eth_chainId')).result).to.equal('0xae3f2');
    expect(await callsServed(followers[1]!, 'eth_chainId')).to.equal(before + 20);
  });

  it('passes eth_subscribe through to a follower over WebSocket', async () => {
    const client = await WsClient.connect(`ws://127.0.0.1:${wsPort}/`);
    try {
      const { result } = await client.call('eth_subscribe', ['newHeads']);
      const [notification] = await client.notificationsAtLeast(1);
      expect(notification.params.subscription).to.equal(result);
      expect(notification.params.result.number).to.match(/^0x[0-9a-f]+$/);
    } finally {
      client.close();
    }
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { CHAIN_ID, DEV_MNEMONIC, sleep } from './chain-kit.js';
import { rpc } from './rpc-client.js';

/** anvil running as a peer to compare traces with. */
export interface AnvilPeer {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts anvil on a free port with evmnode's dev mnemonic, chain ID and fork (Prague), with step
 * tracing on (without it its struct logs are empty), and waits until it answers.
 */
export async function startAnvil(): Promise<AnvilPeer> {
  const binary = join(
    dirname(createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json')),
    'bin/anvil',
  );
  const port = await freePort();
  const child = spawn(
    binary,
    [
      ...['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(CHAIN_ID)],
      ...['--mnemonic', DEV_MNEMONIC, '--hardfork', 'prague', '--steps-tracing', '--silent'],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const peer = { url: `http://127.0.0.1:${port}/`, stop: () => stop(child) };
  for (let tries = 0; ; tries++) {
    try {
      await rpc(peer.url, 'eth_chainId');
      return peer;
    } catch (error) {
      if (tries === 100 || child.exitCode !== null) {
        await peer.stop();
        throw error;
      }
      await sleep(100);
    }
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** A port nobody listens on right now (anvil cannot be given port 0 and report the one it took). */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

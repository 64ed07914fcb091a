import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { CHAIN_ID, DEV_MNEMONIC } from './chain-kit.js';
import { rpc } from './rpc-client.js';

/** anvil, run as a peer to compare traces with. */
export interface AnvilPeer {
  readonly url: string;
  stop(): Promise<void>;
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts anvil from the checkout's `@foundry-rs/anvil-linux-amd64` with the dev mnemonic, the
 * local chain ID and Prague rules, mining each transaction at once and recording every opcode
 * (`--steps-tracing`: without it its struct logs are empty).
 */
export async function startAnvil(): Promise<AnvilPeer> {
  const binary = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/bin/anvil');
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    [
      '--port',
      String(port),
      '--mnemonic',
      DEV_MNEMONIC,
      '--chain-id',
      String(CHAIN_ID),
      '--hardfork',
      'prague',
      '--steps-tracing',
      '--silent',
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await rpc(url, 'eth_chainId')).result !== undefined) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error('anvil did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

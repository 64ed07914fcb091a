import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.js';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { CHAIN_ID, DEV_MNEMONIC, submit, waitForReceipt } from './chain-kit.js';
import { rpc } from './rpc-client.js';

/** An anvil node run as a peer to compare traces with. */
export interface AnvilPeer {
  readonly url: string;
  stop(): Promise<void>;
}

/** The anvil binary the `@foundry-rs/anvil-linux-amd64` package ships. */
function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');
}

/**
 * Starts anvil on the dev mnemonic and chain id, on the Prague rules evmnode runs, with step
 * tracing on (without it anvil's opcode-level traces are empty), and waits until it listens.
 */
export async function startAnvil(): Promise<AnvilPeer> {
  const port = await freePort();
  const child: ChildProcess = spawn(anvilBinary(), [
    '--port',
    String(port),
    '--chain-id',
    CHAIN_ID.toString(),
    '--mnemonic',
    DEV_MNEMONIC,
    '--hardfork',
    'prague',
    '--steps-tracing',
  ]);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Listening on')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`anvil exited with ${code}: ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill();
      await exited;
    },
  };
}

/** Has evmnode (at `nodeUrl`) and anvil mine the same signed transaction; its hash, once both report success. */
export async function mineOnBoth(nodeUrl: string, anvil: AnvilPeer, raw: string): Promise<string> {
  const hash = await submit(nodeUrl, raw);
  expect((await rpc(anvil.url, 'eth_sendRawTransaction', [raw])).result).to.equal(hash);
  expect((await waitForReceipt(nodeUrl, hash)).status).to.equal('0x1');
  expect((await rpc(anvil.url, 'eth_getTransactionReceipt', [hash])).result.status).to.equal('0x1');
  return hash;
}

import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { chainIdRequest } from './chain-id-call.js';
import { evmnodeCli, exitBeforeReady, freePort, spawnChild, stopChild } from './child-processes.js';

/** A server under test, running as a child process on 127.0.0.1. */
export interface Target {
  readonly name: string;
  readonly httpUrl: string;
  readonly wsUrl: string;
  /** The `eth_chainId` result every answer must carry, e.g. `0x7a69`. */
  readonly chainId: string;
  stop(): Promise<void>;
}

const STARTUP_MS = 30_000;
const ANVIL_CHAIN_ID = 31337;

/** Starts the built evmnode CLI on a fresh home with OS-assigned ports, read back from its start-up log line. */
export async function startEvmnode(repoRoot: string): Promise<Target> {
  const home = await mkdtemp(join(tmpdir(), 'evmnode-bench-'));
  const args = ['start', '--home', home];
  args.push('--evm.http_port', '0', '--evm.ws_port', '0', '--logging.format', 'json', '--logging.level', 'info');
  const child = spawnChild(evmnodeCli(repoRoot), args, () => rmSync(home, { recursive: true, force: true }));
  try {
    const line = await firstLine(child, (text) => text.includes('"msg":"evmnode started"'));
    const started = JSON.parse(line) as { http?: { port?: number }; ws?: { port?: number }; chainId?: number };
    const { http, ws, chainId } = started;
    if (http?.port === undefined || ws?.port === undefined || chainId === undefined)
      throw new Error(`evmnode start-up line lacks http/ws port or chainId: ${line}`);
    return target('evmnode', child, http.port, ws.port, chainId);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** Where npm put the anvil binary (the package has no JS entry point, only `bin/anvil`). */
export function anvilBinary(): string {
  const manifest = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json');
  const binary = join(dirname(manifest), 'bin/anvil');
  accessSync(binary, constants.X_OK);
  return binary;
}

/** Starts anvil (HTTP and WebSocket share one port) and waits until it answers `eth_chainId`. */
export async function startAnvil(binary: string): Promise<Target> {
  const port = await freePort();
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(ANVIL_CHAIN_ID), '--silent'];
  const child = spawnChild(binary, args);
  child.stdout?.resume(); // --silent should keep it empty; drain it anyway so anvil never blocks on it
  const anvil = target('anvil', child, port, port, ANVIL_CHAIN_ID);
  try {
    await Promise.race([answering(anvil), exitBeforeReady(child)]);
    return anvil;
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

function target(name: string, child: ChildProcess, httpPort: number, wsPort: number, chainId: number): Target {
  return {
    name,
    httpUrl: `http://127.0.0.1:${httpPort}/`,
    wsUrl: `ws://127.0.0.1:${wsPort}/`,
    chainId: `0x${chainId.toString(16)}`,
    stop: () => stopChild(child),
  };
}

/** The first stdout line matching `wanted`; rejects if the child exits or stays silent too long. */
async function firstLine(child: ChildProcess, wanted: (line: string) => boolean): Promise<string> {
  if (child.stdout === null) throw new Error('child stdout is not piped');
  // Reading continues after the match, so a chatty server never blocks on a full pipe.
  const lines = createInterface({ input: child.stdout });
  const found = new Promise<string>((resolve) =>
    lines.on('line', (line) => {
      if (wanted(line)) resolve(line);
    }),
  );
  const deadline = sleep(STARTUP_MS, undefined, { ref: false }).then(() => {
    throw new Error(`no start-up line within ${STARTUP_MS} ms`);
  });
  return Promise.race([found, exitBeforeReady(child), deadline]);
}

/** Polls until the target answers with its chain id, for servers that log nothing when ready. */
async function answering(target: Target): Promise<void> {
  const deadline = Date.now() + STARTUP_MS;
  for (;;) {
    try {
      const response = await fetch(target.httpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chainIdRequest(1),
      });
      const { result } = (await response.json()) as { result?: unknown };
      if (result === target.chainId) return;
      throw new Error(`${target.name} answered eth_chainId with ${String(result)}, expected ${target.chainId}`);
    } catch (error) {
      if (!isConnectionRefused(error)) throw error;
      if (Date.now() > deadline) throw new Error(`${target.name} did not listen within ${STARTUP_MS} ms`);
      await sleep(100);
    }
  }
}

function isConnectionRefused(error: unknown): boolean {
  return error instanceof TypeError && (error.cause as { code?: unknown } | undefined)?.code === 'ECONNREFUSED';
}

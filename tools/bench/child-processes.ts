import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { constants } from 'node:os';

/** Children still running, with the synchronous cleanup to run once each is gone. */
const live = new Map<ChildProcess, () => void>();

// Whatever ends the bench (an exception, a signal) must not leave a server running behind it.
process.once('exit', () => {
  for (const [child, cleanup] of live) {
    child.kill('SIGKILL');
    cleanup();
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => process.exit(128 + constants.signals[signal]));

/** Spawns a server with piped output; `cleanup` runs after it stops, or at exit if it never did. */
export function spawnChild(command: string, args: readonly string[], cleanup: () => void = () => {}): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  live.set(child, cleanup);
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited and was cleaned up. */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(kill);
  }
  live.get(child)?.();
  live.delete(child);
}

/** Rejects when the child fails to spawn or exits before it is ready; the error carries the end of its stderr. */
export async function exitBeforeReady(child: ChildProcess): Promise<never> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const how = await new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`failed: ${error.message}`));
    child.once('exit', (code, signal) => resolve(`exited (${String(code ?? signal)})`));
  });
  throw new Error(`${child.spawnfile} ${how} before it was ready${stderr ? `:\n${stderr.trimEnd()}` : ''}`);
}

/** A port nobody listens on right now (anvil cannot be given port 0 and report the one it took). */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** The evmnode CLI run as its `evmnode` bin is: the built script itself, whose shebang sets Node's heap flags. */
export function evmnodeCli(repoRoot: string): string {
  return join(repoRoot, 'tools/dist/src/cli/evmnode.js');
}

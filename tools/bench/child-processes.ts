import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
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

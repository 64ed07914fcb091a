import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI, run as the `evmnode` bin runs it. */
export const CLI = fileURLToPath(new URL('../../../tools/dist/src/cli/evmnode.js', import.meta.url));

/** Environment for CLI runs: no EVMNODE_ variables of the developer's leak in. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EVMNODE_')));
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI to completion. */
export function runCli(args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A node started by `evmnode start` in its own process. */
export interface NodeProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Every JSON log line so far. */
  readonly logs: Record<string, unknown>[];
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

/** Every listener on a free port (the local network also serves the native gateway), so that runs never collide. */
const FREE_PORTS = ['--evm.http_port', '0', '--evm.ws_port', '0', '--native.rpc_port', '0'];

/**
 * Starts `evmnode start <args>` with JSON logs on free ports and waits for its "evmnode started"
 * line; with `openFiles`, under that limit on open files (the shell's `ulimit -n`).
 */
export function startNodeProcess(args: readonly string[], openFiles?: number): Promise<NodeProcess> {
  const command = [CLI, 'start', ...FREE_PORTS, '--logging.format', 'json', ...args];
  const child =
    openFiles === undefined
      ? spawn(process.execPath, command, { env: cleanEnv() })
      : spawn('/bin/sh', ['-c', `ulimit -n ${openFiles} && exec "$0" "$@"`, process.execPath, ...command], {
          env: cleanEnv(),
        });
  const logs: Record<string, unknown>[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === 'evmnode started') {
          const { port } = entry.http as { port: number };
          resolve({ child, url: `http://127.0.0.1:${port}`, logs, exited });
        }
      }
    });
    void exited.then((code) => reject(new Error(`evmnode exited with ${code} before starting: ${stderr}`)));
  });
}

/** Kills a node process that is still running (a test's clean-up after a failure mid-way). */
export async function killIfRunning(node: NodeProcess | undefined): Promise<void> {
  if (node === undefined || node.child.exitCode !== null || node.child.signalCode !== null) return;
  node.child.kill('SIGKILL');
  await node.exited;
}

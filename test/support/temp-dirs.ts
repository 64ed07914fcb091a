import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made: string[] = [];

/** A new folder under the system's temporary one (`evmnode-<purpose>-…`), removed when the test run ends. */
export function temporaryDir(purpose: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `evmnode-${purpose}-`));
  made.push(dir);
  return dir;
}

// mocha runs with `exit`: the process ends once every `after` hook has closed its nodes and stores.
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

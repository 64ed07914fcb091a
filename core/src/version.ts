import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The evmnode release, from core's package.json (found by name: core may run from its bundle). */
export const EVMNODE_VERSION: string = (
  JSON.parse(readFileSync(fileURLToPath(import.meta.resolve('@evmnode/core/package.json')), 'utf8')) as {
    version: string;
  }
).version;

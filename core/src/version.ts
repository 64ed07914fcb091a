import { readFileSync } from 'node:fs';

/** The evmnode release, from core's package.json. */
export const EVMNODE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

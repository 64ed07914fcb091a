import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { StartupError } from '@evmnode/core';
import type { HostedKeysConfig } from './deps.js';

/**
 * The keystores' passphrase: the first line of `passphrase_file` when it is set, else the value of
 * the environment variable `passphrase_env`; undefined when neither gives one.
 */
export async function readPassphrase(
  config: HostedKeysConfig,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  if (config.passphrase_file === '') return config.passphrase_env === '' ? undefined : env[config.passphrase_env];
  const file = path.resolve(config.passphrase_file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new StartupError(
      `cannot read the passphrase file ${file} ([plugins.hosted-keys] passphrase_file): ${(error as Error).message}`,
    );
  }
  return text.split('\n')[0]!.replace(/\r$/, '');
}

import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { StartupError } from '@evmnode/core';

/** The folder of the node's keystores: `<home>/keyring`. */
export function keyringFolder(home: string): string {
  return path.join(home, 'keyring');
}

/**
 * The keystore files in `folder`: every regular file whose name does not start with a dot, since
 * geth names its keystores `UTC--<time>--<address>`, without an extension. None when the folder
 * does not exist.
 */
export async function keystoreFiles(folder: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new StartupError(`cannot read the keyring folder ${folder}: ${(error as Error).message}`);
  }
  return entries
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => path.join(folder, entry.name))
    .sort();
}

/** The private key of a Web3 Secret Storage (version 3) keystore; the node refuses to start, naming the file, otherwise. */
export async function decryptKeystore(file: string, passphrase: string): Promise<Uint8Array> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new StartupError(`cannot read the keystore ${file}: ${(error as Error).message}`);
  }
  // Loaded only when there is a keystore to decrypt: the package takes ~150 ms to import.
  const { Wallet } = await import('@ethereumjs/wallet');
  try {
    // Not strict about letter case: ethers writes the `Crypto` member capitalised, and geth reads it so.
    return (await Wallet.fromV3(text, passphrase, true)).getPrivateKey();
  } catch (error) {
    const message = (error as Error).message;
    if (message.includes('wrong passphrase')) {
      throw new StartupError(
        `the passphrase does not decrypt the keystore ${file}: ` +
          'give the right one through [plugins.hosted-keys] passphrase_file or passphrase_env, or remove the file.',
      );
    }
    throw new StartupError(
      `${file} is not a Web3 Secret Storage (version 3) keystore (${message}): remove it from the keyring folder.`,
    );
  }
}

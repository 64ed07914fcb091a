import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { hexToBytes, isValidPrivate } from '@ethereumjs/util';
import { UsageError } from '../cli/usage-error.js';

/** The environment variable holding a keystore's passphrase when no --passphrase-file is given. */
export const PASSPHRASE_ENV = 'KEYRING_PASSPHRASE';

const HEX_KEY = /^0x[0-9a-fA-F]{64}$/;

/** The first line of the passphrase file, else the environment's {@link PASSPHRASE_ENV}. */
async function readPassphrase(
  passphraseFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  if (passphraseFile === undefined) return env[PASSPHRASE_ENV];
  const file = path.resolve(passphraseFile);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the passphrase file ${file}: ${(error as Error).message}`);
  }
  return text.split('\n')[0]!.replace(/\r$/, '');
}

/** The private key of a Web3 Secret Storage (version 3) keystore file. */
async function decryptKeystore(file: string, passphrase: string): Promise<Uint8Array> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the keystore ${file}: ${(error as Error).message}`);
  }
  const { Wallet } = await import('@ethereumjs/wallet');
  try {
    // Not strict about letter case: ethers writes the `Crypto` member capitalised, and geth reads it so.
    return (await Wallet.fromV3(text, passphrase, true)).getPrivateKey();
  } catch (error) {
    const message = (error as Error).message;
    if (message.includes('wrong passphrase')) throw new Error(`the passphrase does not decrypt the keystore ${file}`);
    throw new Error(`${file} is not a Web3 Secret Storage (version 3) keystore (${message})`);
  }
}

/**
 * The secp256k1 private key a command signs with: `key` is 0x hex, or the path of a keystore whose
 * passphrase is the first line of `passphraseFile`, else the environment's {@link PASSPHRASE_ENV}.
 */
export async function readSigningKey(
  key: string,
  passphraseFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Uint8Array> {
  if (key.startsWith('0x')) {
    if (!HEX_KEY.test(key) || !isValidPrivate(hexToBytes(key as `0x${string}`))) {
      throw new UsageError('the key is not a secp256k1 private key (0x and 64 hex digits)');
    }
    return hexToBytes(key as `0x${string}`);
  }
  const file = path.resolve(key);
  const passphrase = await readPassphrase(passphraseFile, env);
  if (passphrase === undefined) {
    throw new UsageError(
      `${file} is read as a keystore: give its passphrase in --passphrase-file FILE or the environment variable ${PASSPHRASE_ENV}`,
    );
  }
  return decryptKeystore(file, passphrase);
}

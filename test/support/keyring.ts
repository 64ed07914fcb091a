import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encryptKeystoreJsonSync } from 'ethers';

/** A home folder whose keyring holds `files` (name -> content). */
export function homeWithKeyring(files: Record<string, string>): string {
  const home = mkdtempSync(path.join(tmpdir(), 'evmnode-keys-'));
  mkdirSync(path.join(home, 'keyring'));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(home, 'keyring', name), content);
  return home;
}

/** A Web3 Secret Storage keystore of `wallet`; a small scrypt cost keeps the test fast, as the format allows. */
export function keystoreOf(wallet: { address: string; privateKey: string }, passphrase: string): string {
  return encryptKeystoreJsonSync(wallet, passphrase, { scrypt: { N: 1024 } });
}

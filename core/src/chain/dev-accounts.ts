import { pbkdf2Sync } from 'node:crypto';
import { bytesToHex, publicToAddress, type PrefixedHexString } from '@ethereumjs/util';
import { HDKey } from '@scure/bip32';
import secp256k1 from 'secp256k1';

/** The mnemonic of the local network's funded accounts, the same one anvil and Hardhat use. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/** How many of the mnemonic's accounts the local network funds, as anvil and Hardhat do. */
export const DEV_ACCOUNT_COUNT = 10;

export interface DevAccount {
  readonly address: PrefixedHexString;
  readonly privateKey: PrefixedHexString;
}

/**
 * The BIP-39 seed of a mnemonic without a passphrase. Node's native PBKDF2 does in 2 ms what a
 * pure-JS one does in 50, and this runs on every start of a local node.
 */
function seedOf(mnemonic: string): Uint8Array {
  return pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
}

/** Accounts derived so far, by mnemonic: a local node's genesis and its hosted keys both need them at start-up. */
const derived = new Map<string, readonly DevAccount[]>();

/** The first `count` accounts of `mnemonic` on the path m/44'/60'/0'/0/i. */
export function devAccounts(count: number, mnemonic = DEV_MNEMONIC): DevAccount[] {
  let accounts = derived.get(mnemonic) ?? [];
  if (accounts.length < count) {
    // Deriving the common parent once leaves one child derivation per account.
    const parent = HDKey.fromMasterSeed(seedOf(mnemonic)).derive("m/44'/60'/0'/0");
    accounts = Array.from({ length: count }, (_, index) => {
      const child = parent.deriveChild(index);
      // The derivation already made the compressed public key: decompressing it (libsecp256k1)
      // costs far less than computing it again in pure JS, and this runs on every local start.
      const publicKey = secp256k1.publicKeyConvert(child.publicKey!, false).subarray(1);
      return { address: bytesToHex(publicToAddress(publicKey)), privateKey: bytesToHex(child.privateKey!) };
    });
    derived.set(mnemonic, accounts);
  }
  return accounts.slice(0, count);
}

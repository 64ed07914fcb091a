import { privateToAddress, bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';

/** The mnemonic of the local network's funded accounts, the same one anvil and Hardhat use. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

export interface DevAccount {
  readonly address: PrefixedHexString;
  readonly privateKey: PrefixedHexString;
}

/** The first `count` accounts of `mnemonic` on the path m/44'/60'/0'/0/i. */
export function devAccounts(count: number, mnemonic = DEV_MNEMONIC): DevAccount[] {
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  return Array.from({ length: count }, (_, index) => {
    const privateKey = root.derive(`m/44'/60'/0'/0/${index}`).privateKey!;
    return { address: bytesToHex(privateToAddress(privateKey)), privateKey: bytesToHex(privateKey) };
  });
}

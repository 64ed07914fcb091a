import type { PrefixedHexString } from '@ethereumjs/util';

export interface DevAccount {
  readonly address: PrefixedHexString;
  readonly privateKey: PrefixedHexString;
  /** Compressed. */
  readonly publicKey: PrefixedHexString;
}

/**
 * The local network's funded accounts: m/44'/60'/0'/0/0-9 of the mnemonic anvil and Hardhat use,
 * "test test test test test test test test test test test junk", as they print them at start.
 * Listed rather than derived: the derivation's elliptic-curve arithmetic in pure JS took about
 * 110 ms of every local node's start. `test/unit/chain-rules.test.ts` derives them again.
 */
const DEV_ACCOUNTS: readonly DevAccount[] = (
  [
    [
      '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      '0x038318535b54105d4a7aae60c08fc45f9687181b4fdfc625bd1a753fa7397fed75',
    ],
    [
      '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
      '0x02ba5734d8f7091719471e7f7ed6b9df170dc70cc661ca05e688601ad984f068b0',
    ],
    [
      '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
      '0x039d9031e97dd78ff8c15aa86939de9b1e791066a0224e331bc962a2099a7b1f04',
    ],
    [
      '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
      '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
      '0x0220b871f3ced029e14472ec4ebc3c0448164942b123aa6af91a3386c1c403e0eb',
    ],
    [
      '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
      '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
      '0x03bf6ee64a8d2fdc551ec8bb9ef862ef6b4bcb1805cdc520c3aa5866c0575fd3b5',
    ],
    [
      '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc',
      '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
      '0x0337b84de6947b243626cc8b977bb1f1632610614842468dfa8f35dcbbc55a515e',
    ],
    [
      '0x976ea74026e726554db657fa54763abd0c3a0aa9',
      '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
      '0x029a4ab212cb92775d227af4237c20b81f4221e9361d29007dfc16c79186b577cb',
    ],
    [
      '0x14dc79964da2c08b23698b3d3cc7ca32193d9955',
      '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
      '0x0201f2bf1fa920e77a43c7aec2587d0b3814093420cc59a9b3ad66dd5734dda7be',
    ],
    [
      '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
      '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
      '0x03931e7fda8da226f799f791eefc9afebcd7ae2b1b19a03c5eaa8d72122d9fe74d',
    ],
    [
      '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
      '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
      '0x023255458e24278e31d5940f304b16300fdff3f6efd3e2a030b5818310ac67af45',
    ],
  ] satisfies [PrefixedHexString, PrefixedHexString, PrefixedHexString][]
).map(([address, privateKey, publicKey]) => ({ address, privateKey, publicKey }));

/** How many accounts the local network funds, as anvil and Hardhat do. */
export const DEV_ACCOUNT_COUNT = DEV_ACCOUNTS.length;

/** The first `count` dev accounts (at most {@link DEV_ACCOUNT_COUNT}). */
export function devAccounts(count: number): DevAccount[] {
  if (count > DEV_ACCOUNTS.length) throw new RangeError(`there are ${DEV_ACCOUNTS.length} dev accounts, not ${count}`);
  return DEV_ACCOUNTS.slice(0, count);
}

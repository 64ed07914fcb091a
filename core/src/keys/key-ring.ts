import { bytesToHex, privateToAddress, type PrefixedHexString } from '@ethereumjs/util';

/**
 * The keys this node signs with for `eth_sendTransaction`, `eth_signTransaction`, `eth_sign` and
 * `eth_accounts`. Core starts it empty (a public node holds no keys); a plugin such as
 * `hosted-keys` adds keys during its setup.
 */
export class KeyRing {
  readonly #keys = new Map<PrefixedHexString, Uint8Array>();

  /** Adds a secp256k1 private key and returns its lower-case EVM address. */
  add(privateKey: Uint8Array): PrefixedHexString {
    const address = bytesToHex(privateToAddress(privateKey));
    this.#keys.set(address, privateKey);
    return address;
  }

  /** How many keys the node holds: none on a public node. */
  get size(): number {
    return this.#keys.size;
  }

  /** The addresses of the held keys, in the order they were added. */
  addresses(): PrefixedHexString[] {
    return [...this.#keys.keys()];
  }

  /** The private key of `address` (lower-case), or undefined when the node holds none. */
  privateKeyOf(address: PrefixedHexString): Uint8Array | undefined {
    return this.#keys.get(address);
  }
}

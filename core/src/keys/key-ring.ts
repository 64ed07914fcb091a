import { bytesToHex, publicToAddress, type PrefixedHexString } from '@ethereumjs/util';
import secp256k1 from 'secp256k1';

/**
 * The keys this node signs with for `eth_sendTransaction`, `eth_signTransaction`, `eth_sign` and
 * `eth_accounts`. Core starts it empty (a public node holds no keys); a plugin such as
 * `hosted-keys` adds keys during its setup.
 */
export class KeyRing {
  readonly #keys = new Map<PrefixedHexString, Uint8Array>();

  /**
   * Adds a secp256k1 private key and returns its lower-case EVM address. The public key comes from
   * libsecp256k1: in pure JS, the first one builds the curve's tables, about 60 ms of a local
   * node's start.
   */
  add(privateKey: Uint8Array): PrefixedHexString {
    const address = bytesToHex(publicToAddress(secp256k1.publicKeyCreate(privateKey, false).subarray(1)));
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

import { createHash } from 'node:crypto';
import { bech32 } from '@scure/base';
import { expect } from 'chai';
import { getBytes, hexlify, SigningKey } from 'ethers';
import {
  castNativeAddress,
  decodeNativeAddress,
  encodeNativeAddress,
  evmAddressOfKey,
  nativeAddressOfKey,
  NativeAddressError,
} from '@evmnode/core';
import { castEvmAddress } from '@evmnode/core/internal';
import { devWallet } from '../support/chain-kit.js';

/** Dev account 0 (0xf39F…2266): its key, and its native address as @cosmjs/amino and the BIP-173 reference code derive it. */
const DEV0 = {
  compressedKey: '0x038318535b54105d4a7aae60c08fc45f9687181b4fdfc625bd1a753fa7397fed75',
  evm: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  native: 'sei15428vq2uzwhm3taey9sr9x5vm6tk78ew5cyfgc',
  /** The bech32 of the EVM address's own 20 bytes. */
  cast: 'sei17w0adeg64ky0daxwd2ugyuneellmjgnxw32ydp',
};

describe('native addresses', () => {
  it("derives dev account 0's EVM and native addresses from its key in every encoding", () => {
    const uncompressed = SigningKey.computePublicKey(DEV0.compressedKey, false);
    for (const key of [DEV0.compressedKey, uncompressed, `0x${uncompressed.slice(4)}`]) {
      expect(hexlify(evmAddressOfKey(getBytes(key)))).to.equal(DEV0.evm);
      expect(encodeNativeAddress(nativeAddressOfKey(getBytes(key)))).to.equal(DEV0.native);
    }
  });

  it('hashes the compressed key as OpenSSL does, for every dev account', () => {
    for (let index = 0; index < 10; index++) {
      const key = devWallet(index).signingKey.compressedPublicKey;
      const openssl = createHash('ripemd160')
        .update(createHash('sha256').update(getBytes(key)).digest())
        .digest();
      expect(hexlify(nativeAddressOfKey(getBytes(key)))).to.equal(hexlify(openssl));
      expect(hexlify(evmAddressOfKey(getBytes(key)))).to.equal(devWallet(index).address.toLowerCase());
    }
  });

  it('reads back what it encodes', () => {
    expect(hexlify(decodeNativeAddress(DEV0.native))).to.equal(
      hexlify(nativeAddressOfKey(getBytes(DEV0.compressedKey))),
    );
    expect(hexlify(decodeNativeAddress(DEV0.native.toUpperCase()))).to.equal(hexlify(decodeNativeAddress(DEV0.native)));
  });

  it('casts an unassociated address to the same 20 bytes, both ways', () => {
    expect(castNativeAddress(getBytes(DEV0.evm))).to.equal(DEV0.cast);
    expect(hexlify(castEvmAddress(DEV0.cast))).to.equal(DEV0.evm);
    // A 32-byte native address keeps its last 20 bytes.
    const long = new Uint8Array(32).fill(0xaa);
    long.set(getBytes(DEV0.evm), 12);
    expect(hexlify(castEvmAddress(bech32.encode('sei', bech32.toWords(long))))).to.equal(DEV0.evm);
  });

  it('refuses strings that are not native addresses, with the Cosmos SDK messages', () => {
    const cases: [string, string][] = [
      ['', 'empty address string is not allowed'],
      ['  ', 'empty address string is not allowed'],
      [bech32.encode('cosmos', bech32.toWords(getBytes(DEV0.evm))), 'invalid Bech32 prefix; expected sei, got cosmos'],
      [bech32.encode('sei', []), 'addresses cannot be empty'],
    ];
    for (const [text, message] of cases) {
      expect(() => decodeNativeAddress(text), text).to.throw(NativeAddressError, message);
    }
    // A changed character breaks the checksum.
    const corrupted = `${DEV0.native.slice(0, -1)}${DEV0.native.endsWith('q') ? 'p' : 'q'}`;
    expect(() => decodeNativeAddress(corrupted)).to.throw(NativeAddressError, /^decoding bech32 failed: /);
  });
});

import { bytesToHex, bytesToUnprefixedHex } from '@ethereumjs/util';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';

/**
 * `patches/@noble+hashes+*.patch` has `bytesToHex` (which ethereumjs and the node call for every
 * cache key, address and hash they print) encode through Node's Buffer: same text, one string.
 */
describe('hex encoding', () => {
  it('encodes every length, and views into a larger buffer, as lowercase hex', () => {
    for (let length = 0; length <= 300; length++) {
      const backing = randomBytes(length + 7);
      const view = new Uint8Array(backing.buffer, backing.byteOffset + 3, length);
      const expected = Buffer.from(view).toString('hex');
      expect(bytesToUnprefixedHex(view)).to.equal(expected);
      expect(bytesToHex(view)).to.equal(`0x${expected}`);
    }
  });

  it('keeps the known vectors', () => {
    expect(bytesToHex(Uint8Array.of(0xca, 0xfe, 0x01, 0x23))).to.equal('0xcafe0123');
    expect(bytesToHex(Uint8Array.of(0x00, 0x0f, 0xf0, 0xff))).to.equal('0x000ff0ff');
    expect(bytesToHex(new Uint8Array())).to.equal('0x');
  });

  it('still rejects what is not bytes', () => {
    expect(() => bytesToUnprefixedHex([1, 2] as unknown as Uint8Array)).to.throw(TypeError);
  });
});

import { expect } from 'chai';
import { Bloom } from '@ethereumjs/vm';
import { keccak256 } from 'ethers';
// Loading core installs its Bloom.add, which remembers the bits of entries it has hashed.
import '@evmnode/core/internal';

/** Keccak-256 in an array of its own: ethereumjs reads a hash through its whole buffer. */
const keccakBytes = (data: Uint8Array): Uint8Array => Uint8Array.from(Buffer.from(keccak256(data).slice(2), 'hex'));

/** A second copy of ethereumjs' bloom module, whose `add` is the library's own. */
async function originalBloom(): Promise<typeof Bloom> {
  const url = new URL('./bloom/index.js?original', import.meta.resolve('@ethereumjs/vm'));
  return ((await import(url.href)) as { Bloom: typeof Bloom }).Bloom;
}

/** `count` distinct entries, emitters (20 bytes) and topics (32 bytes) in turn, some of them views into a larger buffer. */
function entries(count: number): Uint8Array[] {
  return Array.from({ length: count }, (_, index) => {
    const hash = keccakBytes(Uint8Array.of(index >> 8, index & 255));
    const padded = Buffer.concat([Buffer.alloc(7), hash]);
    return padded.subarray(7, index % 2 === 0 ? 7 + 20 : 7 + 32);
  });
}

describe('Bloom.add as core installs it', () => {
  it("sets the library's bits for entries new, repeated, and hashed again after many others", async () => {
    const Original = await originalBloom();
    // 10,000 entries pass the remembered few thousand: some are hashed again, others remembered.
    const distinct = entries(5_000);
    const added = [...distinct, ...distinct.slice(0, 2_500), ...distinct.slice(4_000)];
    for (let start = 0; start < added.length; start += 1_000) {
      const ours = new Bloom();
      const library = new Original();
      for (const entry of added.slice(start, start + 1_000)) {
        ours.add(entry);
        library.add(entry);
      }
      expect(Buffer.from(ours.bitvector).toString('hex')).to.equal(Buffer.from(library.bitvector).toString('hex'));
      expect(ours.bitvector.some((byte) => byte !== 0)).to.equal(true);
    }
  });

  it("sets the library's bits for entries repeated in a row, alone and between others", async () => {
    const Original = await originalBloom();
    const [emitter, topic, other] = entries(3);
    // A copy of the emitter in an array of its own, then one changed in place after it was added.
    const changed = Uint8Array.from(other!);
    const added = [emitter!, emitter!, Uint8Array.from(emitter!), topic!, emitter!, topic!, topic!, changed];
    const ours = new Bloom();
    const library = new Original();
    for (const entry of added) {
      ours.add(entry);
      library.add(entry);
    }
    changed[0] = changed[0]! ^ 0xff;
    ours.add(changed);
    library.add(changed);
    expect(Buffer.from(ours.bitvector).toString('hex')).to.equal(Buffer.from(library.bitvector).toString('hex'));
  });

  it('hashes an entry once however often it is added, to one bloom or many', () => {
    let hashed = 0;
    const hashing = { customCrypto: { keccak256: (data: Uint8Array) => ((hashed += 1), keccakBytes(data)) } };
    // An entry no other test adds.
    const entry = keccakBytes(Buffer.from('an entry of this test only')).subarray(0, 20);
    const blooms = Array.from({ length: 10 }, () => new Bloom(undefined, hashing as never));
    for (const bloom of blooms) for (let time = 0; time < 100; time++) bloom.add(entry);
    expect(hashed).to.equal(1);
    for (const bloom of blooms) expect(bloom.check(entry)).to.equal(true);
  });

  it("leaves a bloom the library's check finds each entry in", () => {
    const bloom = new Bloom();
    const [emitter, topic, absent] = entries(3);
    bloom.add(emitter!);
    bloom.add(topic!);
    bloom.add(emitter!);
    expect(bloom.check(emitter!)).to.equal(true);
    expect(bloom.check(topic!)).to.equal(true);
    expect(bloom.check(absent!)).to.equal(false);
  });
});

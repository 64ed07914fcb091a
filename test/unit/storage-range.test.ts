import { expect } from 'chai';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToBytes, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { storageRange } from '@evmnode/core/internal';

/** A storage trie as the state manager keeps one: hashed slot keys, RLP values without leading zeros. */
async function storageTrie(slots: number): Promise<MerklePatriciaTrie> {
  const trie = new MerklePatriciaTrie({ useKeyHashing: true });
  for (let slot = 0; slot < slots; slot++) {
    await trie.put(setLengthLeft(bigIntToBytes(BigInt(slot)), 32), RLP.encode(bigIntToBytes(BigInt(slot + 1))));
  }
  return trie;
}

describe('storageRange', () => {
  it('pages through 500 slots in hashed-key order, as a full walk of the trie lists them', async () => {
    const trie = await storageTrie(500);
    const { values } = await trie.getValueMap();
    const expected = Object.keys(values)
      .sort()
      .map((key) => [
        key,
        bytesToHex(setLengthLeft(RLP.decode(hexToBytes(values[key] as `0x${string}`)) as Uint8Array, 32)),
      ]);
    const listed: string[][] = [];
    let start: Uint8Array = new Uint8Array(32);
    for (;;) {
      const { slots, next } = await storageRange(trie, start, 37);
      listed.push(...slots.map((slot) => [bytesToHex(slot.hashedKey), bytesToHex(slot.value)]));
      if (next === undefined) break;
      expect(slots).to.have.length(37);
      start = next;
    }
    expect(listed).to.deep.equal(expected);
  });

  it('starts after a key between two slots, and lists nothing for an empty trie', async () => {
    const trie = await storageTrie(20);
    const all = (await storageRange(trie, new Uint8Array(32), 1000)).slots;
    // Just after the fifth slot's key (its last byte is below 0xff for these slots).
    const between = Uint8Array.from(all[4]!.hashedKey);
    between[31] = between[31]! + 1;
    const { slots } = await storageRange(trie, between, 3);
    expect(slots.map((slot) => bytesToHex(slot.hashedKey))).to.deep.equal(
      all.slice(5, 8).map((slot) => bytesToHex(slot.hashedKey)),
    );
    expect(await storageRange(new MerklePatriciaTrie({ useKeyHashing: true }), new Uint8Array(32), 10)).to.deep.equal({
      slots: [],
      next: undefined,
    });
  });
});

import { expect } from 'chai';
import type { RawJson } from '@evmnode/core';
import { JsonArrayPacker } from '@evmnode/core/internal';

const KIB = 1024;

/** `count` distinct JSON strings of `size` bytes each (quotes included). */
function elements(count: number, size: number): Buffer[] {
  return Array.from({ length: count }, (_, index) => Buffer.from(JSON.stringify(String(index).padEnd(size - 2, 'x'))));
}

function packed(items: readonly Buffer[]): RawJson {
  const packer = new JsonArrayPacker();
  for (const item of items) packer.append(item);
  expect(packer.count).to.equal(items.length);
  return packer.end();
}

describe('JsonArrayPacker', () => {
  it('packs an empty array and a small one as one piece', () => {
    expect(packed([]).parts.map((part) => part.toString())).to.deep.equal(['[]']);
    const small = packed(elements(3, 10));
    expect(small.parts).to.have.length(1);
    expect(JSON.parse(small.bytes.toString())).to.deep.equal(['0xxxxxxx', '1xxxxxxx', '2xxxxxxx']);
  });

  it('packs 100,000 elements into pieces that double from 16 KiB to 1 MiB, every byte in order', () => {
    const items = elements(100_000, 100);
    const json = packed(items);
    expect(json.length).to.equal(100_000 * 101 + 1);
    expect(JSON.parse(json.bytes.toString())).to.deep.equal(items.map((item) => JSON.parse(item.toString())));
    const sizes = json.parts.map((part) => part.length);
    // A piece is as large as all before it, filled up to its last whole element (and maybe the comma after it).
    const capacities = [16, 16, 32, 64, 128, 256, 512, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024].map(
      (kib) => kib * KIB,
    );
    sizes.slice(0, -1).forEach((size, index) => expect(capacities[index]! - size).to.be.within(0, 100));
    expect(sizes).to.have.length(capacities.length);
  });

  it('passes an element larger than a piece on as it is, between the pieces around it', () => {
    const large = Buffer.from(JSON.stringify('y'.repeat(2 * KIB * KIB)));
    const json = packed([Buffer.from('1'), large, Buffer.from('2')]);
    expect(json.parts.map((part) => part.length)).to.deep.equal([3, large.length, 3]);
    expect(json.parts[1]!.buffer).to.equal(large.buffer);
    expect(JSON.parse(json.bytes.toString())).to.deep.equal([1, 'y'.repeat(2 * KIB * KIB), 2]);
  });
});

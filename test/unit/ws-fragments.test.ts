import { expect } from 'chai';
import { wsFragments } from '@evmnode/core/internal';

const KIB = 1024;

describe('the fragments of a WebSocket message', () => {
  it('sends text and single buffers as they are', () => {
    const bytes = Buffer.from('{"jsonrpc":"2.0"}');
    expect(wsFragments('{"id":1}')).to.deep.equal(['{"id":1}']);
    expect(wsFragments(bytes)[0]).to.equal(bytes);
  });

  it('joins small pieces up to about 1 MiB a fragment, and keeps every byte in order', () => {
    const pieces = Array.from({ length: 40 }, (_, index) => Buffer.alloc(60 * KIB, index));
    const fragments = wsFragments(pieces) as Buffer[];
    // Eighteen pieces reach 1 MiB: 18 + 18 + 4.
    expect(fragments.map((fragment) => fragment.length)).to.deep.equal([1080 * KIB, 1080 * KIB, 240 * KIB]);
    expect(Buffer.concat(fragments).equals(Buffer.concat(pieces))).to.equal(true);
  });

  it('sends a piece of 64 KiB or more as a fragment of its own, without copying it', () => {
    const large = Buffer.alloc(2048 * KIB, 7);
    const medium = Buffer.alloc(64 * KIB, 8);
    const pieces = [Buffer.from('['), large, Buffer.from(','), Buffer.from('{}'), medium, Buffer.from(']')];
    const fragments = wsFragments(pieces) as Buffer[];
    expect(fragments.map((fragment) => fragment.length)).to.deep.equal([1, 2048 * KIB, 3, 64 * KIB, 1]);
    expect(Buffer.concat(fragments).equals(Buffer.concat(pieces))).to.equal(true);
    expect(fragments[1]!.buffer).to.equal(large.buffer);
    expect(fragments[3]!.buffer).to.equal(medium.buffer);
    expect(wsFragments([large])[0]).to.satisfy((only: Buffer) => only.buffer === large.buffer);
  });

  it('joins the small pieces between large ones', () => {
    const small = Array.from({ length: 5 }, (_, index) => Buffer.alloc(60 * KIB, index));
    const large = Buffer.alloc(100 * KIB, 9);
    const fragments = wsFragments([...small, large, ...small]) as Buffer[];
    expect(fragments.map((fragment) => fragment.length)).to.deep.equal([300 * KIB, 100 * KIB, 300 * KIB]);
    expect(Buffer.concat(fragments).equals(Buffer.concat([...small, large, ...small]))).to.equal(true);
  });

  it('sends an empty list of pieces as one empty fragment', () => {
    expect(wsFragments([]).map((fragment) => fragment.length)).to.deep.equal([0]);
  });
});

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
    const pieces = Array.from({ length: 10 }, (_, index) => Buffer.alloc(300 * KIB, index));
    const fragments = wsFragments(pieces) as Buffer[];
    // Four pieces reach 1 MiB: 4 + 4 + 2.
    expect(fragments.map((fragment) => fragment.length)).to.deep.equal([1200 * KIB, 1200 * KIB, 600 * KIB]);
    expect(Buffer.concat(fragments).equals(Buffer.concat(pieces))).to.equal(true);
  });

  it('sends a piece of a megabyte or more as a fragment of its own, without copying it', () => {
    const large = Buffer.alloc(2048 * KIB, 7);
    const pieces = [Buffer.from('['), large, Buffer.from(']')];
    const fragments = wsFragments(pieces) as Buffer[];
    expect(fragments.map((fragment) => fragment.length)).to.deep.equal([1 + 2048 * KIB, 1]);
    expect(Buffer.concat(fragments).equals(Buffer.concat(pieces))).to.equal(true);
    expect(wsFragments([large])[0]).to.satisfy((only: Buffer) => only.buffer === large.buffer);
  });

  it('sends an empty list of pieces as one empty fragment', () => {
    expect(wsFragments([]).map((fragment) => fragment.length)).to.deep.equal([0]);
  });
});

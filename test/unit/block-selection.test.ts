import { expect } from 'chai';
import { selectionWithin, type Selection } from '@evmnode/core/internal';

/** A selection of EVM candidates with these gas limits (and natives with those), each named by its index. */
function selectionOf(gasLimits: readonly number[], nativeGasLimits: readonly number[] = []): Selection {
  return {
    started: 0,
    candidates: gasLimits.map((gasLimit, index) => ({ hash: `0x${index}`, tx: { gasLimit: BigInt(gasLimit) } })),
    nativeCandidates: nativeGasLimits.map((gasLimit) => ({ gasLimit: BigInt(gasLimit) })),
  } as unknown as Selection;
}

const hashes = (selection: Selection): string[] => selection.candidates.map(({ hash }) => hash);

describe('block selection within a gas budget', () => {
  it('keeps the candidates, in order, whose gas limits fit, and stops at the first that does not', () => {
    const selection = selectionOf([21_000, 60_000, 21_000, 21_000]);
    expect(hashes(selectionWithin(selection, 81_000))).to.deep.equal(['0x0', '0x1']);
    // The third would fit after the second, but a later candidate may be the same sender's next nonce.
    expect(hashes(selectionWithin(selection, 100_000))).to.deep.equal(['0x0', '0x1']);
    expect(hashes(selectionWithin(selection, 20_999))).to.deep.equal([]);
  });

  it('returns the selection itself when everything fits', () => {
    const selection = selectionOf([21_000, 21_000]);
    expect(selectionWithin(selection, 42_000)).to.equal(selection);
    expect(selectionWithin(selection, Infinity)).to.equal(selection);
  });

  it('counts the native candidates first and keeps them all', () => {
    const selection = selectionOf([21_000, 21_000], [100_000]);
    const within = selectionWithin(selection, 121_000);
    expect(hashes(within)).to.deep.equal(['0x0']);
    expect(within.nativeCandidates).to.equal(selection.nativeCandidates);
    expect(hashes(selectionWithin(selection, 50_000))).to.deep.equal([]);
    expect(selectionWithin(selection, 50_000).nativeCandidates).to.have.length(1);
  });
});

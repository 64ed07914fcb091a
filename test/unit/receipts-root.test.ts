import { receiptsRootOf } from '@evmnode/core/internal';
import { expect } from 'chai';

/** A bloom whose bytes differ by `seed`, so that entries in a different order hash differently. */
const bloom = (seed: number) => Uint8Array.from({ length: 256 }, (_, index) => (index * seed) & 0xff);

/**
 * A block's receipts root commits every receipt's status, gas used and bloom; a follower checks
 * the producer's against its own, and stored chains hold it, so its bytes must never change.
 */
describe('receipts root', () => {
  it('is SHA-256 of nothing for a block without transactions', () => {
    expect(receiptsRootOf([])).to.equal('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('keeps the commitment of status, 8-byte gas used and bloom, receipt after receipt', () => {
    const results = [
      { status: 1, gasUsed: 21_000n, bloom: bloom(0) },
      { status: 0, gasUsed: 2n ** 63n + 5n, bloom: bloom(7) },
      { status: 1, gasUsed: 0n, bloom: bloom(13) },
    ] as const;
    expect(receiptsRootOf(results)).to.equal('0xf786100e6eaf1253d303727dd44369a5f6045bec046671a18eaabc6e8dc0e613');
    expect(receiptsRootOf([results[1], results[0], results[2]])).to.not.equal(receiptsRootOf(results));
  });
});

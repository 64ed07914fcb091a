import { expect } from 'chai';
import { BlockDurations } from '@evmnode/core/internal';

const LIMIT = 12_500_000;

/** Durations that learned blocks of 4 ms when empty and 120 ms when full, whose transactions use half their gas limits. */
function learned(): BlockDurations {
  const durations = new BlockDurations(LIMIT, 200);
  for (let block = 0; block < 100; block++) {
    durations.observe(0, 0, 4);
    durations.observe(2 * LIMIT, LIMIT, 120);
  }
  return durations;
}

describe('block durations', () => {
  it('leads by the first guess until blocks are timed: a twentieth of it for an empty block, all of it for a full one, plus a margin', () => {
    const durations = new BlockDurations(LIMIT, 200);
    // The margin: 2.5 times a first deviation of a twentieth of the guess, or 0.6 times the
    // predicted time if that is more.
    expect(durations.lead(0)).to.equal(10 + 25);
    expect(durations.fullLead()).to.equal(200 + 120);
    expect(durations.lead(LIMIT / 2)).to.equal(105 + 63);
    // Candidates beyond a block's gas limit do not make a block longer than a full one.
    expect(durations.lead(10 * LIMIT)).to.equal(200 + 120);
  });

  it("learns an empty block's time, the time per gas and the gas used per gas limit from the node's blocks", () => {
    const durations = learned();
    // Times that the model predicts exactly leave a margin of 0.6 times the predicted time.
    expect(durations.lead(0)).to.be.closeTo(4 * 1.6, 1e-6);
    expect(durations.fullLead()).to.be.closeTo(120 * 1.6, 1e-6);
    // Candidates whose limits add up to half a block's use a quarter of it.
    expect(durations.lead(LIMIT / 2)).to.be.closeTo((4 + 116 / 4) * 1.6, 1e-6);
  });

  it('expects a block to be full once its candidates, used at the learned share of their gas limits, reach its gas limit', () => {
    const fresh = new BlockDurations(LIMIT, 200);
    expect(fresh.fills(LIMIT)).to.equal(true);
    expect(fresh.fills(LIMIT - 1)).to.equal(false);
    // Transactions that use half their gas limits: twice the block's gas in limits fills it.
    const durations = learned();
    expect(durations.fills(2 * LIMIT)).to.equal(true);
    expect(durations.fills(1.9 * LIMIT)).to.equal(false);
  });

  it('keeps a margin of 0.6 times the predicted time when full blocks take 100 and 140 ms by turns', () => {
    const durations = new BlockDurations(LIMIT, 120);
    for (let block = 0; block < 200; block++) durations.observe(LIMIT, LIMIT, block % 2 === 0 ? 100 : 140);
    // The prediction swings about the mean of 120 by 3 ms each way, 23 ms from each time seen:
    // 2.5 mean deviations are less than 0.6 times it.
    expect(durations.fullLead()).to.be.within(117 * 1.6, 123 * 1.6);
  });

  it('keeps a margin of 2.5 mean deviations when full blocks take 40 and 200 ms by turns', () => {
    const durations = new BlockDurations(LIMIT, 120);
    for (let block = 0; block < 200; block++) durations.observe(LIMIT, LIMIT, block % 2 === 0 ? 40 : 200);
    // The prediction swings between 109 and 131 ms, 91 ms from each time seen.
    expect(durations.fullLead()).to.be.within(108 + 2.5 * 91, 132 + 2.5 * 92);
  });

  it('follows a change in speed within a few blocks, and a stray time widens the margin', () => {
    const durations = new BlockDurations(LIMIT, 200);
    for (let block = 0; block < 30; block++) durations.observe(LIMIT, LIMIT, 100);
    const settled = durations.fullLead();
    expect(settled).to.be.within(160, 161);
    // A block of 5% of the limit, however slow, leaves the time of the gas alone: an empty block
    // is still predicted at its first guess. Its deviation widens the margin of an empty block.
    const empty = durations.lead(0);
    durations.observe(LIMIT / 20, LIMIT / 20, 50);
    expect(durations.fullLead()).to.be.closeTo(settled, 1e-6);
    expect(durations.lead(0)).to.be.above(empty + 15);
  });
});

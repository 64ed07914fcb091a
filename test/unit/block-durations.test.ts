import { expect } from 'chai';
import { BlockDurations } from '@evmnode/core/internal';

const LIMIT = 12_500_000;

describe('block durations', () => {
  it('leads by the first guess until blocks are timed: a twentieth of it for an empty block, all of it for a full one, plus a margin', () => {
    const durations = new BlockDurations(LIMIT, 200);
    // The margin: 2.5 times a first deviation of a twentieth of the guess.
    expect(durations.lead(0)).to.equal(10 + 25);
    expect(durations.fullLead()).to.equal(200 + 25);
    expect(durations.lead(LIMIT / 2)).to.equal(105 + 25);
    // Candidates beyond a block's gas limit do not make a block longer than a full one.
    expect(durations.lead(10 * LIMIT)).to.equal(200 + 25);
  });

  it("learns an empty block's time, the time per gas and the gas used per gas limit from the node's blocks", () => {
    const durations = new BlockDurations(LIMIT, 200);
    for (let block = 0; block < 100; block++) {
      durations.observe(0, 0, 4);
      // Token transfers using half the gas their limits allow: 120 ms for a full block, 4 of them fixed.
      durations.observe(2 * LIMIT, LIMIT, 120);
    }
    // Times that the model predicts exactly leave no margin.
    expect(durations.lead(0)).to.be.closeTo(4, 1e-6);
    expect(durations.fullLead()).to.be.closeTo(120, 1e-6);
    // Candidates whose limits add up to half a block's use a quarter of it.
    expect(durations.lead(LIMIT / 2)).to.be.closeTo(4 + 116 / 4, 1e-6);
  });

  it('keeps a margin of 2.5 mean deviations when full blocks take 100 and 140 ms by turns', () => {
    const durations = new BlockDurations(LIMIT, 120);
    for (let block = 0; block < 200; block++) durations.observe(LIMIT, LIMIT, block % 2 === 0 ? 100 : 140);
    // The prediction swings about the mean of 120 by 3 ms each way, 23 ms from each time seen.
    expect(durations.fullLead()).to.be.within(120 + 2.5 * 20, 123 + 2.5 * 23);
  });

  it('follows a change in speed within a few blocks and learns no time per gas from nearly empty blocks', () => {
    const durations = new BlockDurations(LIMIT, 200);
    for (let block = 0; block < 30; block++) durations.observe(LIMIT, LIMIT, 100);
    const settled = durations.fullLead();
    expect(settled).to.be.within(100, 101);
    // A block of 5% of the limit, however slow, leaves the time of the gas alone: 90 ms above
    // an empty block's first guess. Its deviation widens the margin.
    durations.observe(LIMIT / 20, LIMIT / 20, 50);
    expect(durations.lead(LIMIT) - durations.lead(0)).to.be.closeTo(90, 0.1);
    expect(durations.fullLead()).to.be.above(settled + 20);
  });
});

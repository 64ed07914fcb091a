import { expect } from 'chai';
import { HELD_ANSWERS_BUSY, HeldAnswers } from '@evmnode/core';
import { GatheredLogsRoom } from '@evmnode/core/internal';

describe("the room a log query's logs take", () => {
  it('takes room log by log and gives all of it back at once', () => {
    const held = new HeldAnswers(1000);
    const room = new GatheredLogsRoom(held);
    room.take(300);
    room.take(200);
    expect(held.total).to.equal(500);
    room.release();
    expect(held.total).to.equal(0);
  });

  it('answers server busy when the room is held by other answers', () => {
    const held = new HeldAnswers(1000);
    expect(held.take(600)).to.equal(true);
    const room = new GatheredLogsRoom(held);
    room.take(300);
    expect(() => room.take(200))
      .to.throw(HELD_ANSWERS_BUSY)
      .with.property('code', -32005);
    room.release();
    expect(held.total).to.equal(600);
  });

  it('answers that the response is too large when the query alone passes the room', () => {
    const held = new HeldAnswers(2 * 1024 * 1024);
    const room = new GatheredLogsRoom(held);
    room.take(1024 * 1024);
    expect(() => room.take(1024 * 1024 + 1))
      .to.throw('log response too large: the logs found pass 2 MiB; query fewer blocks')
      .with.property('code', -32005);
    room.release();
    expect(held.total).to.equal(0);
  });
});

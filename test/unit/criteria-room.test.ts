import { expect } from 'chai';
import { ClientQuota, CriteriaRoom, criteriaValues } from '@evmnode/core';

describe('the room log criteria take', () => {
  it('counts each address and topic alternative, and 1 for the criteria itself', () => {
    expect(criteriaValues({ topics: [] })).to.equal(1);
    expect(criteriaValues({ addresses: ['0x01', '0x02'], topics: [['0xaa'], null, ['0xbb', '0xcc']] })).to.equal(6);
  });

  it('holds at most its total, and one client at most its share of it, until room is given back', () => {
    const room = new CriteriaRoom(100, 0.25);
    expect(room.perClient).to.equal(25);
    expect(room.tryTake('a', 20)).to.equal(true);
    expect(room.tryTake('a', 6)).to.equal(false);
    expect(room.tryTake('a', 5)).to.equal(true);
    for (const client of ['b', 'c']) expect(room.tryTake(client, 25)).to.equal(true);
    expect(room.tryTake('d', 25)).to.equal(true);
    // Full: a fifth client gets nothing until some is given back.
    expect(room.tryTake('e', 1)).to.equal(false);
    room.give('a', 20);
    expect(room.tryTake('e', 20)).to.equal(true);
    // Past the client's share, then past the room.
    expect(room.tryTake('a', 21)).to.equal(false);
    expect(room.tryTake('a', 1)).to.equal(false);
  });

  it('lets a client quota take and give several units at once', () => {
    const quota = new ClientQuota(10, 0.5);
    expect(quota.tryAcquire('a', 4)).to.equal(true);
    expect(quota.tryAcquire('a', 2)).to.equal(false);
    expect(quota.tryAcquire('a')).to.equal(true);
    quota.release('a', 5);
    expect(quota.tryAcquire('a', 5)).to.equal(true);
  });
});

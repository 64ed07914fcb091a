import { expect } from 'chai';
import { clientOf } from '@evmnode/core';

describe('the client a peer address stands for', () => {
  it('is the IPv4 address itself, also when a dual-stack socket gives it IPv4-mapped', () => {
    expect(clientOf('203.0.113.7')).to.equal('203.0.113.7');
    expect(clientOf('::ffff:203.0.113.7')).to.equal('203.0.113.7');
    expect(clientOf('127.0.0.2')).to.not.equal(clientOf('127.0.0.1'));
  });

  it("is an IPv6 address's /64 network, whichever of its addresses the host sends from", () => {
    const network = '2001:db8:1:2::/64';
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2:ffff:ffff:ffff:ffff']) {
      expect(clientOf(address), address).to.equal(network);
    }
    expect(clientOf('2001:db8:1:3::1')).to.equal('2001:db8:1:3::/64');
    expect(clientOf('2001:0db8:0001:0002:0000:0000:0000:0009')).to.equal(network);
    expect(clientOf('::1')).to.equal('::/64');
    expect(clientOf('fe80::1%eth0')).to.equal('fe80::/64');
  });

  it('is "unknown" for a socket already closed, whose address Node no longer gives', () => {
    expect(clientOf(undefined)).to.equal('unknown');
  });
});

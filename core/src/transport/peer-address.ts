import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';

/** The networks of IPv6 addresses seen lately: parsing one takes about 3 µs, which each request would pay. */
const ipv6Networks = new LRUCache<string, string>({ max: 4096 });

/** IPv4 clients on a dual-stack socket come as `::ffff:a.b.c.d`, the same client as `a.b.c.d`. */
function unmapped(remoteAddress: string): string {
  return remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.') ? remoteAddress.slice(7) : remoteAddress;
}

/**
 * The client a peer's address stands for, by which every per-client bound counts (connections per
 * address, shares of batch slots, filters and simulations, turns of the node's thread): an IPv4
 * address, or the /64 network of an IPv6 one. A host, or a home, is given a whole /64 and may send
 * from any of its 2^64 addresses, so counting them apart would give one client a bound of its own
 * for each address it picks.
 */
export function clientOf(remoteAddress: string | undefined): string {
  // A socket already closed has no address; whatever it asked goes nowhere anyway.
  if (remoteAddress === undefined) return 'unknown';
  const address = unmapped(remoteAddress);
  if (!address.includes(':')) return address;
  let network = ipv6Networks.get(address);
  if (network === undefined) {
    network = ipv6NetworkOf(address);
    ipv6Networks.set(address, network);
  }
  return network;
}

/** The /64 an IPv6 address is in, as text (`2001:db8:1:2::/64`); anything else as it is. */
function ipv6NetworkOf(address: string): string {
  if (!ipaddr.IPv6.isValid(address)) return address;
  const [a, b, c, d] = ipaddr.IPv6.parse(address).parts;
  return `${new ipaddr.IPv6([a!, b!, c!, d!, 0, 0, 0, 0]).toString()}/64`;
}

/** True for 127.0.0.0/8 and ::1, IPv4-mapped forms included. */
export function isLoopback(remoteAddress: string | undefined): boolean {
  if (remoteAddress === undefined) return false;
  const address = unmapped(remoteAddress);
  return address.startsWith('127.') || address === '::1';
}

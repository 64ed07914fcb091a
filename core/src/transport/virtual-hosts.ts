import { isIP } from 'node:net';
import type { KeyRing } from '../keys/key-ring.js';

/** geth's 403 body for a Host outside `--http.vhosts` (`http.Error` ends it with a newline). */
export const INVALID_HOST = 'invalid host specified\n';

/** Whether a request with this Host header may be served. */
export type HostCheck = (host: string | undefined) => boolean;

/**
 * The Host check against `[evm] vhosts`, as geth's `virtualHostHandler` makes it: it stops DNS
 * rebinding, where a web page whose own name resolves to this node calls it with that name as
 * Host. Passes a request without Host (no browser sends one), an IP address, any host when the
 * list holds `*`, or a listed name (port dropped, letter case ignored, where geth compares as sent).
 *
 * Only while the node holds hosted keys: a public node without them is reached through load
 * balancers under names of their own, and has nothing a rebound page could sign with.
 */
export function hostCheck(vhosts: readonly string[], keys: KeyRing): HostCheck {
  const names = new Set(vhosts.map((name) => name.toLowerCase()));
  if (names.has('*')) return () => true;
  return (host) => {
    if (host === undefined || host === '' || keys.size === 0) return true;
    const name = hostName(host);
    return isIP(name) !== 0 || names.has(name.toLowerCase());
  };
}

/** The host part of a Host header, as Go's `net.SplitHostPort`, or the whole header where it fails (no port, bare IPv6). */
function hostName(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end !== -1 && host[end + 1] === ':' ? host.slice(1, end) : host;
  }
  const colon = host.indexOf(':');
  return colon !== -1 && colon === host.lastIndexOf(':') ? host.slice(0, colon) : host;
}

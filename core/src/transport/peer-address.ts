/**
 * A peer's address as one client is known by: IPv4 clients on a dual-stack socket come as
 * `::ffff:a.b.c.d`, which is the same client as `a.b.c.d`.
 */
export function peerAddress(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return '';
  return remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.') ? remoteAddress.slice(7) : remoteAddress;
}

/** True for 127.0.0.0/8 and ::1, IPv4-mapped forms included. */
export function isLoopback(remoteAddress: string | undefined): boolean {
  const address = peerAddress(remoteAddress);
  return address.startsWith('127.') || address === '::1';
}

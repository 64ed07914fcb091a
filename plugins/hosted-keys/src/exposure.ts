import { BlockList, isIP } from 'node:net';
import { StartupError, type CoreConfig } from '@evmnode/core';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether a listen address is reachable from this machine only (IPv4-mapped and long IPv6 forms included). */
function isLoopback(address: string): boolean {
  const version = isIP(address);
  if (version === 0) return address.toLowerCase() === 'localhost';
  return LOOPBACK.check(address, version === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Refuses to start with hosted keys on ports other machines can reach, as geth refuses to unlock
 * accounts over HTTP without `--allow-insecure-unlock`: whoever reaches the port could sign.
 */
export function checkListenAddress(evm: CoreConfig['evm']): void {
  const served = evm.http_enabled || evm.ws_enabled;
  if (!served || evm.allow_insecure_unlock || isLoopback(evm.listen_address)) return;
  throw new StartupError(
    `this node holds hosted keys and [evm] listen_address "${evm.listen_address}" is not a loopback address: ` +
      'anyone who reaches its HTTP or WebSocket port could sign with them. Listen on 127.0.0.1, switch the keys ' +
      'off with [node] disable_tags = ["hosted-key"], or set [evm] allow_insecure_unlock = true to accept the risk.',
  );
}

/** The `[evm]` origin lists that let every web page call this node ("*"), for the start-up warning. */
export function openOriginKeys(evm: CoreConfig['evm']): string[] {
  const lists = { cors_origins: evm.cors_origins, ws_origins: evm.ws_origins, signing_origins: evm.signing_origins };
  return Object.entries(lists)
    .filter(([, origins]) => origins.includes('*'))
    .map(([key]) => key);
}

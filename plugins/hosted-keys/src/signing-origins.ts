import { InvalidInputError, type RequestHook } from '@evmnode/core';

/** The methods that sign with the hosted keys, whichever plugin serves them. */
const SIGNING_METHODS = new Set(['eth_sign', 'eth_signTransaction', 'eth_sendTransaction', 'ext_sign']);

/** Whether an Origin header is allowed by one `signing_origins` entry. */
type OriginMatch = (origin: string) => boolean;

/** A decimal port, as a serialised origin writes it. */
const PORT = /^\d{1,5}$/;

/**
 * One `[evm] signing_origins` entry: `*` for every origin; `scheme://host:*` for that scheme and
 * host on any port or none (dev servers pick theirs); otherwise the origin itself. Letter case is
 * ignored, as browsers serialise scheme and host in lower case anyway.
 */
function originMatch(entry: string): OriginMatch {
  const allowed = entry.toLowerCase();
  if (allowed === '*') return () => true;
  if (!allowed.endsWith(':*')) return (origin) => origin.toLowerCase() === allowed;
  const site = allowed.slice(0, -2);
  return (origin) => {
    const sent = origin.toLowerCase();
    if (sent === site) return true;
    return sent.startsWith(`${site}:`) && PORT.test(sent.slice(site.length + 1));
  };
}

/** Whether `origin` is allowed by any of `entries`. */
function originAllowed(entries: readonly string[]): OriginMatch {
  const matches = entries.map(originMatch);
  return (origin) => matches.some((match) => match(origin));
}

/**
 * Refuses the signing methods to web pages whose origin `[evm] signing_origins` does not list.
 * A request without an Origin header comes from no browser (curl, ethers in Node, cast) and is
 * served: a page cannot leave the header out, so only browsers need the check.
 *
 * -32000 as geth's own refusal of signing over HTTP (`account unlock with HTTP access is
 * forbidden`): the call can never succeed as sent, so not -32005, which clients retry; and not
 * -32601, since the method exists and serves other clients.
 */
export function signingOriginsHook(entries: readonly string[]): RequestHook {
  const allowed = originAllowed(entries);
  return {
    name: 'signing-origins',
    beforeCall(method, request) {
      if (request.origin === undefined || !SIGNING_METHODS.has(method) || allowed(request.origin)) return;
      throw new InvalidInputError(
        `${method} refused: origin ${request.origin} may not sign with this node's hosted keys; ` +
          'to allow it, add it to signing_origins under [evm] in app.toml',
      );
    },
  };
}

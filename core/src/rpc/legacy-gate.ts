import type { Logger } from 'pino';
import { isLegacyNamespace, LEGACY_ALIASES, LEGACY_METHODS } from './legacy-method-names.js';
import { httpOnlyRefusal } from './method-registry.js';
import type { RequestContext } from './request-context.js';
import type { RequestHook } from './request-hooks.js';
import { MethodNotFoundError } from '../errors/rpc-error.js';

/** The header every HTTP answer to an enabled legacy call carries (decisions.md D3). */
export const LEGACY_DEPRECATION_HEADER = 'Ext-Legacy-RPC-Deprecation';
export const LEGACY_DEPRECATION_TEXT =
  'All ext_* and ext2_* JSON-RPC methods are deprecated and scheduled for removal; migrate to eth_* and supported APIs.';

/** The `data` of the gate's refusal, which clients can match on. */
export const LEGACY_DISABLED_DATA = 'legacy_ext_deprecated';

/** The refusal of a legacy method that `enabled_legacy_ext_apis` does not list (decisions.md D3). */
export function legacyMethodDisabled(method: string): MethodNotFoundError {
  return new MethodNotFoundError(
    `${method} is not enabled on this node. The ext_* and ext2_* JSON-RPC surfaces are deprecated, scheduled ` +
      'for removal, and should not be used for new integrations - prefer standard eth_* (and debug_*) methods. ' +
      'To allow this legacy method, add it to enabled_legacy_ext_apis under [evm] in app.toml.',
    LEGACY_DISABLED_DATA,
  );
}

/** The configured list resolved: the exact method names enabled, and the entries that name no legacy method. */
export interface EnabledLegacyMethods {
  readonly enabled: ReadonlySet<string>;
  readonly unknown: readonly string[];
}

/**
 * Resolves `enabled_legacy_ext_apis` (decisions.md D1): entries match case-insensitively after
 * trimming; a canonical method and its alias are enabled together, whichever of them is listed.
 */
export function resolveEnabledLegacyMethods(entries: readonly string[]): EnabledLegacyMethods {
  const canonicalByKey = new Map<string, string>();
  for (const name of LEGACY_METHODS) canonicalByKey.set(name.toLowerCase(), name);
  for (const [alias, canonical] of LEGACY_ALIASES) canonicalByKey.set(alias.toLowerCase(), canonical);
  const enabled = new Set<string>();
  const unknown: string[] = [];
  for (const entry of entries) {
    const canonical = canonicalByKey.get(entry.trim().toLowerCase());
    if (canonical === undefined) {
      unknown.push(entry);
      continue;
    }
    enabled.add(canonical);
  }
  for (const [alias, canonical] of LEGACY_ALIASES) if (enabled.has(canonical)) enabled.add(alias);
  return { enabled, unknown };
}

/**
 * The legacy gate: a request hook every node runs, legacy plugins loaded or not, fail-closed.
 * Over WebSocket every `ext_`/`ext2_` name is refused as HTTP-only (D2). Over HTTP a name the list
 * does not enable gets the gate's refusal, whether or not such a method exists; an enabled one
 * goes on to the method lookup, so an enabled method whose plugin is not loaded answers the usual
 * method-not-found, as every method of a plugin that is not loaded does (decisions.md D8): the
 * gate only decides access, the registry decides what exists. Either way its
 * answer carries the deprecation header, uncompressed.
 */
export class LegacyGate implements RequestHook {
  readonly name = 'legacy-gate';
  readonly #enabled: ReadonlySet<string>;

  constructor(entries: readonly string[], logger: Logger) {
    const { enabled, unknown } = resolveEnabledLegacyMethods(entries);
    this.#enabled = enabled;
    if (unknown.length > 0) {
      logger.warn(
        { entries: unknown },
        `enabled_legacy_ext_apis names no legacy method: ${unknown.join(', ')} (ignored)`,
      );
    }
  }

  beforeCall(method: string, request: RequestContext): void {
    // The one test every other call pays: two prefix comparisons, no allocation.
    if (!isLegacyNamespace(method)) return;
    if (request.transport === 'ws') throw httpOnlyRefusal(method);
    if (!this.#enabled.has(method)) throw legacyMethodDisabled(method);
    request.setResponseHeader(LEGACY_DEPRECATION_HEADER, LEGACY_DEPRECATION_TEXT, { uncompressed: true });
  }
}

import type { ResolveHook } from 'node:module';

/**
 * A module resolution hook, registered before plugins load: `@evmnode/core` and its subpaths
 * resolve as if core imported itself (a package may import itself by name), so every importer,
 * a plugin in a folder of its own or one with a copy of core in its node_modules, gets this copy
 * of core and its tokens. It runs on Node's loader thread, so it imports nothing and keeps no state.
 */
export const resolve: ResolveHook = (specifier, context, nextResolve) =>
  specifier === '@evmnode/core' || specifier.startsWith('@evmnode/core/')
    ? nextResolve(specifier, { ...context, parentURL: import.meta.url })
    : nextResolve(specifier, context);

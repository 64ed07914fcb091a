import { LRUCache } from 'lru-cache';

/**
 * ethereumjs analyses a contract's code (its jump destinations, push values and the handler of
 * every byte) each time a message runs it: for an ERC20 transfer, about a fifth of the
 * execution. The analysis depends only on the code and on the EVM's opcode table, so it is kept
 * here per table, for the code objects the state caches hand out again and again.
 *
 * The interpreter is not part of the package's public API: the cache is installed only when its
 * analysis method is found, and the analysis is the library's own, only not repeated.
 */

/** What ethereumjs' `_getValidJumpDestinations` returns; the interpreter only reads it. */
interface CodeAnalysis {
  readonly jumps: Uint8Array;
  readonly pushes: Record<number, bigint>;
  readonly opcodesCached: readonly unknown[];
}

interface InterpreterInternals {
  readonly _evm: { readonly _opcodeMap: object };
  _getValidJumpDestinations(code: Uint8Array): CodeAnalysis;
}

/**
 * Estimated bytes an analysis and its code hold per byte of code: the code, one in `jumps`, a
 * reference in `opcodesCached`, and push values (a bigint each) for up to every other byte, as
 * in code made only of PUSH1s.
 */
const BYTES_PER_CODE_BYTE = 32;

/**
 * Analyses kept per opcode table (one per VM: the producer's, each kept replay position's), in
 * estimated bytes: some 50 contracts of 10 KB, where a chain's busy contracts fit.
 */
const MAX_BYTES_PER_TABLE = 16 * 1024 * 1024;

function cacheFor(tables: WeakMap<object, LRUCache<Uint8Array, CodeAnalysis>>, table: object) {
  let cache = tables.get(table);
  if (cache === undefined) {
    cache = new LRUCache<Uint8Array, CodeAnalysis>({
      maxSize: MAX_BYTES_PER_TABLE,
      sizeCalculation: (_analysis, code) => Math.max(1, code.length * BYTES_PER_CODE_BYTE),
    });
    tables.set(table, cache);
  }
  return cache;
}

let installed: Promise<boolean> | undefined;

/** Installs the cache in ethereumjs' interpreter, once per process; whether it could be. */
export function installCodeAnalysisCache(): Promise<boolean> {
  installed ??= (async () => {
    const url = new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm'));
    const module = (await import(url.href)) as { Interpreter?: { prototype: Partial<InterpreterInternals> } };
    const prototype = module.Interpreter?.prototype;
    const analyse = prototype?._getValidJumpDestinations;
    if (prototype === undefined || typeof analyse !== 'function') return false;
    const tables = new WeakMap<object, LRUCache<Uint8Array, CodeAnalysis>>();
    prototype._getValidJumpDestinations = function (this: InterpreterInternals, code: Uint8Array): CodeAnalysis {
      // Code a message reads from memory (a CREATE's init code) is a view of that memory: it is
      // analysed each time, so that no cache entry holds a caller's memory alive.
      if (code.byteOffset !== 0 || code.byteLength !== code.buffer.byteLength) return analyse.call(this, code);
      const cache = cacheFor(tables, this._evm._opcodeMap);
      let analysis = cache.get(code);
      if (analysis === undefined) {
        analysis = analyse.call(this, code);
        cache.set(code, analysis);
      }
      return analysis;
    };
    return true;
  })();
  return installed;
}

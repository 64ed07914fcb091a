/**
 * The part of the WebAssembly API the JS tracers' sandbox uses. Node has all of it, but its
 * types for Node 20 do not declare it (TypeScript's DOM library does, with a browser's globals).
 */
declare namespace WebAssembly {
  class Module {}
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    /** Grows the memory by `pages` of 64 KiB; the previous size in pages. Throws a RangeError past its maximum. */
    grow(pages: number): number;
  }
  function compile(bytes: Uint8Array): Promise<Module>;
}

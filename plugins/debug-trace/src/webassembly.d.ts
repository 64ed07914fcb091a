/**
 * The part of the WebAssembly API the JS tracers' sandbox uses. Node has all of it, but its
 * types for Node 20 do not declare it (TypeScript's DOM library does, with a browser's globals).
 */
declare namespace WebAssembly {
  class Module {}
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
  }
  function compile(bytes: Uint8Array): Promise<Module>;
}

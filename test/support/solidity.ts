import { compileSolidity, type CompiledContract } from '@evmnode/tools/contracts/compile';

export type { CompiledContract } from '@evmnode/tools/contracts/compile';

/** `test/support/contracts/<name>.sol`'s contract `<name>`, compiled with solc (npm) once per process. */
export function compileContract(name: string): CompiledContract {
  // Read from the sources: the compiled tests run from test/dist/support.
  return compileSolidity(new URL('../../support/contracts/', import.meta.url), name);
}

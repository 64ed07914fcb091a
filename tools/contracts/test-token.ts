import { compileToolContract, type CompiledContract } from './compile.js';

export type { CompiledContract } from './compile.js';

/** TestToken.sol (an ERC20) compiled with solc (npm), once per process. */
export function testToken(): CompiledContract {
  return compileToolContract('TestToken');
}

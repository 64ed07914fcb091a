import { readFileSync } from 'node:fs';
import solcModule from 'solc';

// solc ships no type declarations for its main entry.
const solc = solcModule as { compile(input: string): string };

/** The ABI and creation bytecode of a compiled contract. */
export interface CompiledContract {
  readonly abi: readonly object[];
  readonly bytecode: `0x${string}`;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: object[]; evm: { bytecode: { object: string } } }>>;
}

let compiled: CompiledContract | undefined;

/** TestToken.sol compiled with solc (npm), once per process. */
export function testToken(): CompiledContract {
  if (compiled !== undefined) return compiled;
  const source = readFileSync(new URL('../../contracts/TestToken.sol', import.meta.url), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0)
    throw new Error(`TestToken.sol does not compile:\n${errors.map((error) => error.formattedMessage).join('\n')}`);
  const contract = output.contracts['TestToken.sol']!.TestToken!;
  compiled = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  return compiled;
}

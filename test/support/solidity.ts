import { readFileSync } from 'node:fs';
import solcModule from 'solc';

// solc ships no type declarations for its main entry.
const solc = solcModule as { compile(input: string): string };

/** The ABI, creation bytecode and deployed bytecode of a compiled contract. */
export interface CompiledContract {
  readonly abi: readonly object[];
  readonly bytecode: `0x${string}`;
  readonly deployedBytecode: `0x${string}`;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<
    string,
    Record<string, { abi: object[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

const compiled = new Map<string, CompiledContract>();

/** `test/support/contracts/<name>.sol`'s contract `<name>`, compiled with solc (npm) once per process. */
export function compileContract(name: string): CompiledContract {
  const cached = compiled.get(name);
  if (cached !== undefined) return cached;
  const file = `${name}.sol`;
  // Read from the sources: the compiled tests run from test/dist/support.
  const source = readFileSync(new URL(`../../support/contracts/${file}`, import.meta.url), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`${file} does not compile:\n${errors.map((error) => error.formattedMessage).join('\n')}`);
  }
  const contract = output.contracts[file]![name]!;
  const result: CompiledContract = {
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
  };
  compiled.set(name, result);
  return result;
}

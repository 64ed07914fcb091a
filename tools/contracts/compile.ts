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

/**
 * The contract `<name>` of the Solidity file `<folder>/<name>.sol`, compiled with solc (npm)
 * once per process, for Cancun with the optimizer on.
 */
export function compileSolidity(folder: URL, name: string): CompiledContract {
  const source = new URL(`${name}.sol`, folder);
  const cached = compiled.get(source.href);
  if (cached !== undefined) return cached;
  const file = `${name}.sol`;
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: readFileSync(source, 'utf8') } },
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
  compiled.set(source.href, result);
  return result;
}

/** The contract `<name>` of `tools/contracts/<name>.sol`, compiled once per process. */
export function compileToolContract(name: string): CompiledContract {
  // The sources, not the compiled tools (which run from tools/dist/contracts).
  return compileSolidity(new URL('../../contracts/', import.meta.url), name);
}

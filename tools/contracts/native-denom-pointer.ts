import { readFileSync } from 'node:fs';
import solcModule from 'solc';

// solc ships no type declarations for its main entry.
const solc = solcModule as { compile(input: string): string; version(): string };

/** The pointer contract's source, relative to the repository root. */
export const NATIVE_DENOM_POINTER_SOURCE = 'core/contracts/NativeDenomPointer.sol';

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>;
}

/**
 * The runtime code of the ERC20 pointer of a native denomination, compiled with fixed settings and
 * without metadata, so that the same source and compiler always give the same bytes.
 */
export function compileNativeDenomPointer(): `0x${string}` {
  // Read from the sources: the compiled module runs from tools/dist/contracts.
  const source = readFileSync(new URL(`../../../${NATIVE_DENOM_POINTER_SOURCE}`, import.meta.url), 'utf8');
  const file = 'NativeDenomPointer.sol';
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'prague',
      metadata: { bytecodeHash: 'none', appendCBOR: false },
      outputSelection: { [file]: { NativeDenomPointer: ['evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`${file} does not compile:\n${errors.map((error) => error.formattedMessage).join('\n')}`);
  }
  return `0x${output.contracts[file]!.NativeDenomPointer!.evm.deployedBytecode.object}`;
}

/** The compiler's version, for the generated file's header. */
export function solcVersion(): string {
  return solc.version();
}

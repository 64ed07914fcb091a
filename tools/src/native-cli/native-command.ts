import type { CommandLine, CommandLineSpec } from './command-line.js';

/** One `evmnode keys ...` or `evmnode native ...` command. */
export interface NativeCommand extends CommandLineSpec {
  /** Its line in the usage text. */
  readonly synopsis: string;
  run(line: CommandLine): Promise<void>;
}

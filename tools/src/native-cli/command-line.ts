import yargsParser from 'yargs-parser';
import { UsageError } from '../cli/usage-error.js';

/** What a command reads from its command line. */
export interface CommandLine {
  /** Positional arguments, by the names the command declares. */
  readonly positionals: ReadonlyMap<string, string>;
  /** The value of `--name`, undefined when it is not given. */
  flag(name: string): string | undefined;
  /** The value of `--name`; a usage error names the flag when it is not given. */
  requiredFlag(name: string): string;
}

/** The command line a command takes: `--flag VALUE` options (all valued) and positional arguments, in order. */
export interface CommandLineSpec {
  /** The command's words, for messages: `native send`. */
  readonly command: string;
  readonly flags: readonly string[];
  readonly positionals: readonly string[];
}

/**
 * Reads `argv` (what follows the command's words) as `spec` says. An unknown flag, a flag without
 * a value and a missing or extra positional argument are usage errors.
 */
export function parseCommandLine(spec: CommandLineSpec, argv: readonly string[]): CommandLine {
  // Every value stays a string: addresses, keys and amounts are not numbers to yargs.
  const parsed = yargsParser([...argv], {
    string: [...spec.flags],
    configuration: {
      'camel-case-expansion': false,
      'dot-notation': false,
      'parse-numbers': false,
      'parse-positional-numbers': false,
      'boolean-negation': false,
      'duplicate-arguments-array': false,
    },
  });
  const { _: words, ...flags } = parsed;
  for (const name of Object.keys(flags)) {
    if (!spec.flags.includes(name)) throw new UsageError(`${spec.command} does not take --${name}`);
    if (flags[name] === '') throw new UsageError(`--${name} needs a value`);
  }
  const positionals = words.map(String);
  const missing = spec.positionals[positionals.length];
  if (missing !== undefined) throw new UsageError(`${spec.command} needs ${missing}`);
  if (positionals.length > spec.positionals.length) {
    throw new UsageError(`${spec.command} does not take ${positionals[spec.positionals.length]}`);
  }
  const flag = (name: string): string | undefined => flags[name] as string | undefined;
  return {
    positionals: new Map(spec.positionals.map((name, index) => [name, positionals[index]!])),
    flag,
    requiredFlag(name) {
      const value = flag(name);
      if (value === undefined) throw new UsageError(`${spec.command} needs --${name}`);
      return value;
    },
  };
}

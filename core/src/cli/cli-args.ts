import { StartupError } from '../node/startup-error.js';

/** The default home folder: `./.evmnode`. */
export const DEFAULT_HOME = '.evmnode';

/** A command line split into what the CLI reads itself and the configuration flags. */
export interface CliArgs {
  readonly command: string | undefined;
  readonly home: string;
  readonly configFile: string | undefined;
  /** `--profile NAME`: an operator profile of `config/profiles`. */
  readonly profile: string | undefined;
  readonly force: boolean;
  /** `--<section>.<key> value` flags, passed to the configuration. */
  readonly flags: string[];
}

/** Splits `argv` (without node and the script): `--home`, `--config`, `--profile` and `--force` are the CLI's own. */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  const [command, ...rest] = argv;
  let home = DEFAULT_HOME;
  let configFile: string | undefined;
  let profile: string | undefined;
  let force = false;
  const flags: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index]!;
    const [name, inlineValue] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const value = (): string => {
      const taken = inlineValue ?? rest[++index];
      if (taken === undefined || taken.startsWith('--')) throw new StartupError(`${name} needs a value`);
      return taken;
    };
    if (name === '--home') home = value();
    else if (name === '--config') configFile = value();
    else if (name === '--profile') profile = value();
    else if (name === '--force') force = true;
    else flags.push(arg);
  }
  return { command, home, configFile, profile, force, flags };
}

import 'reflect-metadata';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseCliArgs, type CliArgs } from './cli-args.js';
import { configFilePath, type ConfigSources } from '../config/config-sources.js';
import { initialConfig } from '../config/initial-config.js';
import { genesisFilePath } from '../chain/genesis-source.js';
import { EvmNode } from '../node/evm-node.js';
import { StartupError } from '../node/startup-error.js';
import { EVMNODE_VERSION } from '../version.js';

/** The node's commands, which {@link runNodeCli} runs. */
export const NODE_COMMANDS: readonly string[] = ['start', 'init', 'version'];

/** The node commands' part of the `evmnode` usage text: one synopsis a line, then a note on their options. */
export const NODE_USAGE = {
  synopses: [
    'evmnode start [--home DIR] [--config FILE] [--profile NAME] [--<section>.<key> VALUE ...]',
    'evmnode init  [--home DIR] [--force] [--profile NAME] [--<section>.<key> VALUE ...]',
    'evmnode version',
  ],
  note:
    'Home defaults to ./.evmnode; configuration is read from <home>/config/app.toml unless --config is given. ' +
    'A profile (config/profiles/NAME.toml) wins over that file; environment variables and flags win over both.',
} as const;

function sourcesOf(args: CliArgs): ConfigSources {
  return { home: args.home, configFile: args.configFile, profile: args.profile, env: process.env, flags: args.flags };
}

async function start(args: CliArgs): Promise<void> {
  // Handlers go in before the node starts, so that a signal during start-up still stops it cleanly.
  const started: { node?: EvmNode; pendingSignal?: NodeJS.Signals } = {};
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (++signals > 1) process.exit(1);
    if (started.node === undefined) started.pendingSignal = signal;
    else stop(started.node, signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  started.node = await EvmNode.start({ sources: sourcesOf(args) });
  if (started.pendingSignal !== undefined) stop(started.node, started.pendingSignal);
}

/** Graceful shutdown: exit 0 once the node has stopped, 1 if stopping failed. */
function stop(node: EvmNode, signal: NodeJS.Signals): void {
  node.logger.info({ signal }, 'shutting down');
  node.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      node.logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    },
  );
}

/** Writes `<home>/config/app.toml` (every key, its doc and its value) and the network's genesis.json. */
async function init(args: CliArgs): Promise<void> {
  const file = configFilePath({ home: args.home, configFile: args.configFile });
  const genesisFile = genesisFilePath(args.home);
  for (const existing of [file, genesisFile]) {
    if (existsSync(existing) && !args.force)
      throw new StartupError(`${existing} already exists; pass --force to overwrite it`);
  }
  const { appToml, genesis } = await initialConfig(sourcesOf(args));
  mkdirSync(path.dirname(file), { recursive: true });
  mkdirSync(path.dirname(genesisFile), { recursive: true });
  writeFileSync(file, appToml);
  writeFileSync(genesisFile, `${JSON.stringify(genesis, null, 2)}\n`);
  process.stdout.write(`wrote ${file}\nwrote ${genesisFile}\n`);
}

/**
 * Runs one of {@link NODE_COMMANDS}: `argv` is the command line after node and the script, the
 * command first. Throws a {@link StartupError} the operator can act on, or the unexpected error.
 *
 * @example
 * await runNodeCli(['start', '--home', '/var/lib/evmnode']);
 */
export async function runNodeCli(argv: readonly string[]): Promise<void> {
  const args = parseCliArgs(argv);
  switch (args.command) {
    case 'start':
      return start(args);
    case 'init':
      return init(args);
    case 'version':
      process.stdout.write(`evmnode ${EVMNODE_VERSION}\n`);
      return;
    default:
      throw new StartupError(`${args.command ?? 'no command'} is not a node command (${NODE_COMMANDS.join(', ')})`);
  }
}

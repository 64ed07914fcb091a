#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-old-space-size=320 --no-allocation-site-pretenuring
/**
 * The `evmnode` command: `keys ...` and `native ...` build, sign and send native transactions
 * through a running node's gateway; every other command is one of the node's own (core). Each side
 * is imported only when its command runs, so that `evmnode start` does not load Cosmos tooling.
 */
import { setFlagsFromString } from 'node:v8';
import { isStartupError } from '@evmnode/core';
import { UsageError } from './usage-error.js';

const NATIVE_GROUPS: readonly (string | undefined)[] = ['keys', 'native'];

async function main(argv: readonly string[]): Promise<void> {
  leaveWorkersTheirOwnHeaps();
  const [command] = argv;
  if (NATIVE_GROUPS.includes(command)) {
    const { runNativeCli } = await import('../native-cli/native-cli.js');
    return runNativeCli(argv);
  }
  const { NODE_COMMANDS, runNodeCli } = await import('@evmnode/core/cli');
  if (command === undefined || !NODE_COMMANDS.includes(command)) throw new UsageError();
  await runNodeCli(argv);
  if (command === 'start') compileSooner();
}

/**
 * The launch flag's heap cap is for the node's thread, whose heap V8 sized as the process started.
 * V8 reads its flags again for each worker thread it makes, and a size flag there wins over the
 * worker's own `resourceLimits`: cleared, each worker keeps the bound its module gives it.
 */
function leaveWorkersTheirOwnHeaps(): void {
  setFlagsFromString('--max-old-space-size=0');
}

/**
 * Once the node serves (README, V8 flags): each function compiled to baseline code at its first
 * call rather than interpreted until warm, and hot ones optimised after about a seventh of V8's
 * default budget. A node just started then spends fewer of its first thousands of requests in
 * slow code. Set at launch instead, they also compile and optimise what runs only during
 * start-up, which then takes 100–190 ms longer.
 */
function compileSooner(): void {
  setFlagsFromString('--always-sparkplug');
  setFlagsFromString('--interrupt-budget=10000');
}

/**
 * Exit 2 for a command line that cannot run, 1 for a failure. One line says what the operator can
 * act on: a start-up refusal, or any failure of a native command (a bad input or the network's
 * answer); any other error is a bug in the node, reported with its stack.
 */
async function exitWith(error: unknown, command: string | undefined): Promise<never> {
  if (error instanceof UsageError) {
    const text = error.message === '' ? (await import('./usage.js')).usageText() : `evmnode: ${error.message}`;
    process.stderr.write(`${text}\n`);
    process.exit(2);
  }
  const actionable = isStartupError(error) || (NATIVE_GROUPS.includes(command) && error instanceof Error);
  process.stderr.write(`evmnode: ${actionable ? error.message : ((error as Error).stack ?? String(error))}\n`);
  process.exit(1);
}

const argv = process.argv.slice(2);
main(argv).catch((error: unknown) => exitWith(error, argv[0]));

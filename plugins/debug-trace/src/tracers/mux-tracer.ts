import { InvalidInputError, RawJson, type EvmTracer, type TraceOutcome } from '@evmnode/core';
import { jsonOf } from '../block-trace-json.js';
import type { TracerFactory, TransactionTracer } from './tracer.js';

type Hook = (...args: never[]) => void | Promise<void>;

const HOOK_NAMES = ['start', 'step', 'enter', 'exit', 'log', 'selfDestruct', 'nativeTransfer', 'finish'] as const;

/** Named tracers running together over one execution, with each one's result by name. */
export interface TracersTogether {
  readonly hooks: EvmTracer;
  /** `[name, result]` by name, sorted: geth prints the results as a Go map. */
  results(outcome: TraceOutcome): Promise<(readonly [string, unknown])[]>;
}

/**
 * The tracers a config's `tracerConfig` names, each with its own config (`{ "callTracer": {...},
 * "prestateTracer": {...} }`), over one execution; `tracerNamed` is the registry the names are
 * looked up in.
 */
export function tracersTogether(
  tracerNamed: (name: string) => TracerFactory,
  ...[subject, config, run]: Parameters<TracerFactory>
): TracersTogether {
  const names = Object.keys(config.tracerConfig ?? {}).sort();
  const tracers = names.map((name): TransactionTracer => {
    const tracerConfig = config.tracerConfig![name] ?? {};
    if (typeof tracerConfig !== 'object' || Array.isArray(tracerConfig)) {
      throw new InvalidInputError(`invalid config for tracer ${name}`);
    }
    return tracerNamed(name)(
      subject,
      {
        ...config,
        tracer: name,
        tracerConfig: tracerConfig as Readonly<Record<string, unknown>>,
      },
      run,
    );
  });
  return {
    hooks: allOf(tracers.map((tracer) => tracer.hooks)),
    results: (outcome) =>
      Promise.all(names.map(async (name, index) => [name, await tracers[index]!.result(outcome)] as const)),
  };
}

/**
 * geth's `muxTracer`: {@link tracersTogether}, whose results it gives under their names, as JSON
 * made of theirs: a struct logger's megabytes are not parsed back into objects to be written again.
 */
export function muxTracer(tracerNamed: (name: string) => TracerFactory): TracerFactory {
  return (subject, config, run) => {
    const together = tracersTogether(tracerNamed, subject, config, run);
    return { hooks: together.hooks, result: async (outcome) => jsonObjectOf(await together.results(outcome)) };
  };
}

/** The JSON object of `entries`, each value as JSON (taken as it is when it already is). */
function jsonObjectOf(entries: readonly (readonly [string, unknown])[]): RawJson {
  const parts: Uint8Array[] = [];
  entries.forEach(([name, value], index) => {
    parts.push(Buffer.from(`${index === 0 ? '{' : ','}${JSON.stringify(name)}:`), ...jsonOf(value).parts);
  });
  parts.push(Buffer.from(entries.length === 0 ? '{}' : '}'));
  return new RawJson(parts);
}

/** Hooks that call each tracer's hook in turn; only hooks some tracer has, so no `step` unless one wants it. */
function allOf(tracers: readonly EvmTracer[]): EvmTracer {
  const hooks: { -readonly [Name in keyof EvmTracer]: EvmTracer[Name] } = {};
  for (const name of HOOK_NAMES) {
    const each = tracers.flatMap((tracer): Hook[] => (tracer[name] === undefined ? [] : [tracer[name].bind(tracer)]));
    if (each.length > 0) hooks[name] = inTurn(each);
  }
  const stepOpcodes = stepOpcodesOf(tracers.filter((tracer) => tracer.step !== undefined));
  if (stepOpcodes !== undefined) hooks.stepOpcodes = stepOpcodes;
  return hooks;
}

/** The opcodes the stepping `tracers` watch between them; undefined (every opcode) when one watches them all or none steps. */
function stepOpcodesOf(tracers: readonly EvmTracer[]): ReadonlySet<number> | undefined {
  if (tracers.length === 0) return undefined;
  const opcodes = new Set<number>();
  for (const tracer of tracers) {
    if (tracer.stepOpcodes === undefined) return undefined;
    for (const opcode of tracer.stepOpcodes) opcodes.add(opcode);
  }
  return opcodes;
}

/** Calls `hooks` one after the other, waiting for a hook's promise before the next runs. */
function inTurn(hooks: readonly Hook[]): Hook {
  const from = (first: number, args: never[]): void | Promise<void> => {
    for (let index = first; index < hooks.length; index++) {
      const pending = hooks[index]!(...args);
      if (pending instanceof Promise) return pending.then(() => from(index + 1, args));
    }
  };
  return (...args) => from(0, args);
}

import { InvalidInputError } from '@evmnode/core';
import { callTracer } from './call-tracer.js';
import { flatCallTracer } from './flat-call-tracer.js';
import { fourByteTracer } from './four-byte-tracer.js';
import { jsTracer } from './js-tracer.js';
import { muxTracer } from './mux-tracer.js';
import { noopTracer } from './noop-tracer.js';
import { prestateTracer } from './prestate-tracer.js';
import { structLogger } from './struct-logger.js';
import type { TracerFactory } from './tracer.js';

/** The native tracers by the names geth gives them. */
const NATIVE_TRACERS: ReadonlyMap<string, TracerFactory> = new Map([
  ['noopTracer', noopTracer],
  ['structLogger', structLogger],
  ['callTracer', callTracer],
  ['flatCallTracer', flatCallTracer],
  ['prestateTracer', prestateTracer],
  ['4byteTracer', fourByteTracer],
  ['muxTracer', muxTracer(tracerNamed)],
]);

/** The tracer a config names; no name is the struct logger. */
export function tracerNamed(name: string | undefined): TracerFactory {
  const tracer = NATIVE_TRACERS.get(name ?? 'structLogger');
  if (tracer === undefined) throw new InvalidInputError(`tracer not found: ${name ?? 'structLogger'}`);
  return tracer;
}

/** A bare name: never a tracer object, so an unknown one is a tracer not found rather than a script's ReferenceError. */
const TRACER_NAME = /^[A-Za-z_$][\w$]*$/;

/** As geth: a `tracer` that names no native tracer is JavaScript code (unless it is a bare name). */
export function isJsTracer(name: string | undefined): name is string {
  return name !== undefined && !NATIVE_TRACERS.has(name) && !TRACER_NAME.test(name);
}

/** The tracer a config's `tracer` names, or the JavaScript tracer it holds. */
export function tracerFor(name: string | undefined): TracerFactory {
  return isJsTracer(name) ? jsTracer(name) : tracerNamed(name);
}

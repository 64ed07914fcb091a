import { InvalidInputError } from '@evmnode/core';
import { callTracer } from './call-tracer.js';
import { flatCallTracer } from './flat-call-tracer.js';
import { fourByteTracer } from './four-byte-tracer.js';
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

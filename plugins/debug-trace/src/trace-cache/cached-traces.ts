import { RawJson } from '@evmnode/core';
import { blockTraceJson } from '../block-trace-json.js';
import type { TraceConfig } from '../trace-config.js';
import { BAKED_TRACERS, type BakedTracer, type TraceStore } from './trace-store.js';

/** The baked tracer a config names with an empty `tracerConfig` and no other option; undefined otherwise. */
export function bakedTracerOf(config: TraceConfig): BakedTracer | undefined {
  const { tracer, tracerConfig, ...options } = config;
  if (tracer === undefined || !Object.hasOwn(BAKED_TRACERS, tracer)) return undefined;
  if (tracerConfig !== undefined && Object.keys(tracerConfig).length > 0) return undefined;
  if (Object.values(options).some((option) => option !== undefined)) return undefined;
  return tracer as BakedTracer;
}

/** The trace cache's answers, as the JSON bytes the live traces would serialise to. */
export class CachedTraces {
  constructor(private readonly store: TraceStore) {}

  /** A transaction's trace as stored; undefined when it is not. */
  async transaction(tracer: BakedTracer, height: number, index: number): Promise<RawJson | undefined> {
    const json = await this.store.transaction(tracer, height, index);
    return json === undefined ? undefined : new RawJson(bufferOf(json));
  }

  /**
   * A block's traces as `debug_traceBlock*` gives them (`[{"txHash":..,"result":..}]`), when every
   * one of `hashes` is stored; undefined otherwise.
   */
  async block(tracer: BakedTracer, height: number, hashes: readonly string[]): Promise<RawJson | undefined> {
    const results = await this.store.block(tracer, height);
    if (results === undefined || hashes.length === 0 || results.length !== hashes.length) return undefined;
    return blockTraceJson(
      results.map((json, index) => ({ txHash: hashes[index] as `0x${string}`, result: new RawJson(bufferOf(json)) })),
    );
  }
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

import {
  blockOverrides,
  boolean,
  codec,
  CodecError,
  jsonKind,
  objectOf,
  stateOverrides,
  string,
  uint64,
  type DecodedParams,
} from '@evmnode/core';

/** `tracerConfig` as given: each tracer reads its own options from it. */
const rawObject = codec('json.RawMessage', (value): Readonly<Record<string, unknown>> => {
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new CodecError(jsonKind(value), 'json.RawMessage');
  return value as Readonly<Record<string, unknown>>;
});

/** Go's `int` as encoding/json reads it: a JSON number without a fraction (the struct logger's `limit`). */
const goInt = codec('int', (value): number => {
  if (typeof value !== 'number') throw new CodecError(jsonKind(value), 'int');
  if (!Number.isInteger(value) || Math.abs(value) >= 2 ** 63) throw new CodecError(`number ${value}`, 'int');
  return value;
});

const traceFields = {
  tracer: string.optional(),
  tracerConfig: rawObject.optional(),
  timeout: string.optional(),
  reexec: uint64.optional(),
  disableStorage: boolean.optional(),
  disableStack: boolean.optional(),
  enableMemory: boolean.optional(),
  enableReturnData: boolean.optional(),
  limit: goInt.optional(),
};

/** geth's `tracers.TraceConfig` (interface.md §2.11): which tracer, its options and the struct logger's. */
export const traceConfig = objectOf('tracers.TraceConfig', traceFields);

/** geth's `tracers.TraceCallConfig`: a trace config plus the call's state and block overrides. */
export const traceCallConfig = objectOf('tracers.TraceCallConfig', {
  ...traceFields,
  stateOverrides: stateOverrides.optional(),
  blockOverrides: blockOverrides.optional(),
});

export type TraceConfig = DecodedParams<[typeof traceConfig]>[0];
export type TraceCallConfig = DecodedParams<[typeof traceCallConfig]>[0];

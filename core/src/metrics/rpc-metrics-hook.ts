import type { Metrics } from './metrics.js';
import type { RpcErrorObject } from '../errors/rpc-error.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import type { RequestHook } from '../rpc/request-hooks.js';

/** Label for methods the node does not serve, so that unknown names cannot grow the label set. */
const UNKNOWN_METHOD = 'unknown';

/** Counts calls, their latency and their errors per method. */
export function rpcMetricsHook(metrics: Metrics, registry: MethodRegistry): RequestHook {
  return {
    name: 'rpc-metrics',
    afterCall(method: string, _request, error: RpcErrorObject | undefined, durationMs: number) {
      const label = registry.get(method) === undefined ? UNKNOWN_METHOD : method;
      metrics.rpcCalls.record(label, durationMs / 1000, error?.code);
    },
  };
}

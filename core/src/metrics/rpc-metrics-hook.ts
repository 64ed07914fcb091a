import type { Metrics } from './metrics.js';
import type { RpcErrorObject } from '../errors/rpc-error.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import type { RequestHook } from '../rpc/request-hooks.js';

/** Label for methods the node does not serve, so that unknown names cannot grow the label set. */
const UNKNOWN_METHOD = 'unknown';

/** Counts calls, their latency and their errors per method. */
export function rpcMetricsHook(metrics: Metrics, registry: MethodRegistry): RequestHook {
  type Children = { requests: { inc(): void }; duration: { observe(seconds: number): void } };
  const children = new Map<string, Children>();
  const childrenOf = (method: string): Children => {
    let found = children.get(method);
    if (found === undefined) {
      found = { requests: metrics.rpcRequests.labels(method), duration: metrics.rpcDuration.labels(method) };
      children.set(method, found);
    }
    return found;
  };
  return {
    name: 'rpc-metrics',
    afterCall(method: string, _request, error: RpcErrorObject | undefined, durationMs: number) {
      const label = registry.get(method) === undefined ? UNKNOWN_METHOD : method;
      const { requests, duration } = childrenOf(label);
      requests.inc();
      duration.observe(durationMs / 1000);
      if (error !== undefined) metrics.rpcErrors.labels(label, String(error.code)).inc();
    },
  };
}

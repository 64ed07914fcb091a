import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The node's Prometheus registry and its JSON-RPC metrics. Plugins register their own metrics on
 * `registry`. When metrics are disabled the service is null rather than a fake.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly rpcRequests = new Counter({
    name: 'evmnode_rpc_requests_total',
    help: 'JSON-RPC calls served, by method',
    labelNames: ['method'] as const,
    registers: [this.registry],
  });

  readonly rpcDuration = new Histogram({
    name: 'evmnode_rpc_request_duration_seconds',
    help: 'Time to serve a JSON-RPC call, by method',
    labelNames: ['method'] as const,
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });

  readonly rpcErrors = new Counter({
    name: 'evmnode_rpc_errors_total',
    help: 'JSON-RPC calls answered with an error, by method and error code',
    labelNames: ['method', 'code'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'evmnode_' });
  }
}

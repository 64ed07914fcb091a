import { collectDefaultMetrics, Registry } from 'prom-client';
import { RpcCallMetrics } from './rpc-call-metrics.js';

/**
 * The node's Prometheus registry and its JSON-RPC metrics. Plugins register their own metrics on
 * `registry`. When metrics are disabled the service is null rather than a fake.
 */
export class Metrics {
  readonly registry = new Registry();

  /** Calls served, their durations and their errors, by method. */
  readonly rpcCalls = new RpcCallMetrics(this.registry);

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'evmnode_' });
  }
}

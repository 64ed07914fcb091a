import { Counter, Histogram, type Registry } from 'prom-client';

/** Upper bounds of the call-duration buckets, in seconds. */
const DURATION_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30] as const;

/** What one method's calls have added up to since start. */
class MethodCalls {
  count = 0;
  sumSeconds = 0;
  /** Calls per bucket, not cumulative; the last slot holds the calls above every bound. */
  readonly bucketCounts = new Array<number>(DURATION_BUCKETS.length + 1).fill(0);
  readonly errorsByCode = new Map<number, number>();

  add(seconds: number, errorCode: number | undefined): void {
    this.count++;
    this.sumSeconds += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
    this.bucketCounts[bucket]!++;
    if (errorCode !== undefined) this.errorsByCode.set(errorCode, (this.errorsByCode.get(errorCode) ?? 0) + 1);
  }
}

/** One exported sample, in the shape prom-client's own histogram hands its registry. */
type DurationValue = {
  labels: { method: string; le?: number | '+Inf' };
  sharedLabels: Record<string, never>;
  value: number;
  metricName: string;
};

/**
 * The call-duration histogram, read from the per-method tallies at scrape time. prom-client's own
 * `observe` allocates and builds a label hash on every call; on a method as cheap as
 * `eth_blockNumber` that cost a fifth of the node's throughput (tools/bench/methods.ts).
 */
class CallDurationHistogram extends Histogram<'method'> {
  static readonly NAME = 'evmnode_rpc_request_duration_seconds';
  static readonly HELP = 'Time to serve a JSON-RPC call, by method';

  constructor(
    registry: Registry,
    private readonly calls: ReadonlyMap<string, MethodCalls>,
  ) {
    super({
      name: CallDurationHistogram.NAME,
      help: CallDurationHistogram.HELP,
      labelNames: ['method'],
      buckets: [...DURATION_BUCKETS],
      registers: [registry],
    });
  }

  /**
   * What the registry exports, built from the tallies (prom-client's `get` reads it too). The
   * histogram's own store stays empty: nothing calls `observe`.
   */
  getForPromString(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    values: DurationValue[];
    aggregator: 'sum';
  }> {
    const { NAME } = CallDurationHistogram;
    const values: DurationValue[] = [];
    const sample = (labels: DurationValue['labels'], value: number, suffix: string): number =>
      values.push({ labels, sharedLabels: {}, value, metricName: `${NAME}_${suffix}` });
    for (const [method, calls] of this.calls) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, bucket) => {
        cumulative += calls.bucketCounts[bucket]!;
        sample({ le, method }, cumulative, 'bucket');
      });
      sample({ le: '+Inf', method }, calls.count, 'bucket');
      sample({ method }, calls.sumSeconds, 'sum');
      sample({ method }, calls.count, 'count');
    }
    return Promise.resolve({
      name: NAME,
      help: CallDurationHistogram.HELP,
      type: 'histogram',
      values,
      aggregator: 'sum',
    });
  }
}

/**
 * JSON-RPC calls, their durations and their errors per method: counted in plain numbers as calls
 * end, and handed to prom-client only when /metrics is read.
 */
export class RpcCallMetrics {
  readonly #byMethod = new Map<string, MethodCalls>();

  constructor(registry: Registry) {
    const byMethod = this.#byMethod;
    new Counter({
      name: 'evmnode_rpc_requests_total',
      help: 'JSON-RPC calls served, by method',
      labelNames: ['method'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [method, calls] of byMethod) this.inc({ method }, calls.count);
      },
    });
    new Counter({
      name: 'evmnode_rpc_errors_total',
      help: 'JSON-RPC calls answered with an error, by method and error code',
      labelNames: ['method', 'code'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [method, calls] of byMethod)
          for (const [code, count] of calls.errorsByCode) this.inc({ method, code }, count);
      },
    });
    new CallDurationHistogram(registry, byMethod);
  }

  /** One call of `method` that took `seconds`; `errorCode` is undefined on success. */
  record(method: string, seconds: number, errorCode: number | undefined): void {
    let calls = this.#byMethod.get(method);
    if (calls === undefined) {
      calls = new MethodCalls();
      this.#byMethod.set(method, calls);
    }
    calls.add(seconds, errorCode);
  }
}

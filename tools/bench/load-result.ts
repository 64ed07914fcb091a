/** What one measured run produced, reduced to the figures the report prints. */
export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Failed or wrong answers: transport errors, non-2xx, wrong result or id, lost requests. */
  readonly errors: number;
}

/** The nearest-rank percentile `p` of values sorted in ascending order (NaN when there are none). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** Nearest-rank percentiles over every recorded round trip (no histogram bucketing). */
export function toLoadResult(latenciesMs: readonly number[], seconds: number, errors: number): LoadResult {
  const sorted = Float64Array.from(latenciesMs).sort();
  return {
    requestsPerSecond: latenciesMs.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors,
  };
}

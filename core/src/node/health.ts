import type { ProductionFailure } from '../chain/block-producer.js';

/** What `GET /health` answers: 200 with `body` when `healthy`, 503 otherwise, so that a balancer takes the node out. */
export interface HealthReport {
  readonly healthy: boolean;
  readonly body: Readonly<Record<string, unknown>>;
}

/** The node's health now. */
export type HealthCheck = () => HealthReport;

/** What a failing node adds to its report: the last failure's text and since when blocks fail. */
export function failureFields(failure: ProductionFailure): Record<string, unknown> {
  return { error: failure.message, failingSince: failure.since.toISOString() };
}

/** A producer is healthy while its blocks are written: one whose last block failed is `failing` (503). */
export function producerHealth(
  producer: { failure(): ProductionFailure | undefined },
  chain: { head(): { readonly height: number } },
): HealthCheck {
  return () => {
    const failure = producer.failure();
    const status = failure === undefined ? 'ok' : 'failing';
    return {
      healthy: failure === undefined,
      body: {
        status,
        role: 'producer',
        height: chain.head().height,
        ...(failure === undefined ? {} : failureFields(failure)),
      },
    };
  };
}

/** What `GET /health` answers: 200 with `body` when `healthy`, 503 otherwise, so that a balancer takes the node out. */
export interface HealthReport {
  readonly healthy: boolean;
  readonly body: Readonly<Record<string, unknown>>;
}

/** The node's health now. */
export type HealthCheck = () => HealthReport;

/** A producer is healthy while it runs. */
export const producerHealth: HealthCheck = () => ({ healthy: true, body: { status: 'ok' } });

import type { Registry } from 'prom-client';

/** Options of `EchoMqMetricsModule.forRoot()`. */
export interface EchoMqMetricsOptions {
  /** The prom-client registry to register in. @default prom-client's global registry (the one `@willsoto/nestjs-prometheus` serves) */
  registry?: Registry;
  /** The queues to report. @default the queues of the application's `@LaneConsumer` classes */
  queues?: string[];
  /**
   * How many of each queue's lanes the per-lane metrics report (0..1,000): `echomq_lane_pending` the lanes
   * with the most pending jobs, `echomq_lane_wait_seconds` those with the oldest heads,
   * `echomq_lane_served_total` those served most in the last 60 s; also how many lanes
   * `echomq_fairness_jain` is read over (10 when 0). @default 10
   */
  topLanes?: number;
  /** How many of each queue's tenants with the most pending jobs `echomq_tenant_pending` reports (0..1,000). @default 10 */
  topTenants?: number;
}

/** @internal Injection token of the metrics options. */
export const ECHOMQ_METRICS_OPTIONS = 'ECHOMQ:METRICS_OPTIONS';

/**
 * `@echomq/nestjs/metrics`: Prometheus metrics of EchoMQ queues, with prom-client (an optional peer
 * dependency, loaded only by this entry).
 */
// NOTE: first, so a missing peer is reported by name before anything requires it.
import './peer';
export { EchoMqMetricsModule } from './echomq-metrics.module';
export type { EchoMqMetricsOptions } from './echomq-metrics.options';

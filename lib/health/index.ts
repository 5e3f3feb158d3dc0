/**
 * `@echomq/nestjs/health`: a health indicator for `@nestjs/terminus` (an optional peer dependency,
 * loaded only by this entry).
 */
// NOTE: first, so a missing peer is reported by name before anything requires it.
import './peer';
export { EchoMqHealthIndicator } from './echomq-health.indicator';

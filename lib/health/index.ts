/**
 * `@echomq/nestjs/health`: a health indicator for `@nestjs/terminus` (an optional peer dependency,
 * loaded only by this entry).
 */
export { EchoMqHealthIndicator } from './echomq-health.indicator';

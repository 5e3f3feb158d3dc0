/**
 * `@echomq/nestjs/dashboard`: the live operator page. Import it only where you want the page; the
 * main entry never loads it.
 */
export { EchoMqDashboardModule } from './echomq-dashboard.module';
export { DASHBOARD_ACTION_HEADER } from './dashboard.constants';
export type { EchoMqDashboardOptions } from './dashboard-options.interface';

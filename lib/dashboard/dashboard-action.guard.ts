import { CanActivate, ExecutionContext, ForbiddenException, Inject, Injectable } from '@nestjs/common';
import { DASHBOARD_ACTION_HEADER, ECHOMQ_DASHBOARD_OPTIONS } from './dashboard.constants';
import type { ResolvedDashboardOptions } from './dashboard-options.interface';
import { missingActionHeader, readOnlyRefusal } from './dashboard.messages';

/**
 * @internal Runs before the user's guard on every change: refuses all of them when the dashboard is
 * read-only, and any request without the action header (which a cross-site form cannot send).
 */
@Injectable()
export class DashboardActionGuard implements CanActivate {
  constructor(@Inject(ECHOMQ_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.options.readOnly) throw new ForbiddenException(readOnlyRefusal());
    const req = context.switchToHttp().getRequest<{ headers?: Record<string, string | string[] | undefined> }>();
    const value = req.headers?.[DASHBOARD_ACTION_HEADER];
    if (value === undefined || value === '') throw new ForbiddenException(missingActionHeader(DASHBOARD_ACTION_HEADER));
    return true;
  }
}

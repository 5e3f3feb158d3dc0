import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { randomBytes, timingSafeEqual } from 'crypto';

/**
 * The dashboard's token: DASHBOARD_TOKEN when set, else a fresh random one per start, printed with
 * the dashboard's link (`/echomq?token=…`). A stand-in for your real auth.
 */
export const DASHBOARD_TOKEN = process.env.DASHBOARD_TOKEN || randomBytes(18).toString('base64url');

/** Lets a dashboard request through when it carries the token (the page passes its `?token=` on). */
@Injectable()
export class DashboardTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const token = context.switchToHttp().getRequest<{ query?: Record<string, unknown> }>().query?.token;
    if (typeof token !== 'string') return false;
    const given = Buffer.from(token);
    const expected = Buffer.from(DASHBOARD_TOKEN);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** The dashboard's link for an app listening at `base` (e.g. http://localhost:3000). */
export function dashboardLink(base: string): string {
  return `${base}/echomq?token=${encodeURIComponent(DASHBOARD_TOKEN)}`;
}

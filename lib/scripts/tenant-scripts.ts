import type { TenantInfo, TenantPending } from '../interfaces';
import type { LaneKeys } from '../redis/lane-keys';
import type { LaneScripts } from './lane-scripts';
import { topOrder } from '../shards/merge-top';

/** How many lanes one topTenants() read counts at most (in scripts of 1,000), over about 1,000 tenants. */
const TOP_TENANT_LANES = 10_000;

/** @internal The typed calls of the tenant scripts (lua/tenant*.lua, pauseTenant, resumeTenant), on LaneScripts' connection. */
export class TenantScripts {
  constructor(private readonly scripts: LaneScripts) {}

  async weight(k: LaneKeys, tenant: string, weight: number): Promise<void> {
    await this.scripts.run('tenantWeight', k.queue, 'tenantWeight', [k.ring, k.tenantInfo(tenant)], [k.base, tenant, weight]);
  }

  async limit(k: LaneKeys, tenant: string, limit: number | null): Promise<void> {
    await this.scripts.run('tenantLimit', k.queue, 'tenantLimit', [k.ring, k.ringSet, k.wake, k.tenantInfo(tenant), k.gactive, k.tenantLanes(tenant)],
      [k.base, tenant, limit ?? '']);
  }

  async pause(k: LaneKeys, tenant: string, forMs: number | null, reason: string): Promise<void> {
    await this.scripts.run('pauseTenant', k.queue, 'pauseTenant', [k.ring, k.ringSet, k.wake, k.timers, k.tenantInfo(tenant)],
      [k.base, tenant, forMs ?? '', reason]);
  }

  async resume(k: LaneKeys, tenant: string): Promise<void> {
    await this.scripts.run('resumeTenant', k.queue, 'resumeTenant', [k.ring, k.ringSet, k.wake, k.timers, k.tenantInfo(tenant)],
      [k.base, tenant]);
  }

  /**
   * The `count` tenants with the most pending jobs, most first (ties by name): the tenants of one page
   * of the queue's tenant set, their lanes counted in scripts of at most 1,000 lanes each
   * (lua/topTenants-1.lua), up to TOP_TENANT_LANES lanes in all; past that the sums are of the lanes read.
   */
  async top(k: LaneKeys, count: number): Promise<TenantPending[]> {
    const sums = new Map<string, number>();
    let left: string[] = [];
    let read = 0;
    do {
      const r = (await this.scripts.run('topTenants', k.queue, 'topTenants', [k.tenants], [k.base, ...left])) as (string | number)[];
      read += Number(r[0]);
      left = [];
      for (let i = 1; i + 2 < r.length; i += 3) {
        const tenant = String(r[i]);
        sums.set(tenant, (sums.get(tenant) ?? 0) + Number(r[i + 1]));
        if (String(r[i + 2]) !== '0') left.push(tenant, String(r[i + 2]));
      }
    } while (left.length > 0 && read < TOP_TENANT_LANES);
    return [...sums].map(([tenant, pending]) => ({ tenant, pending }))
      .sort(topOrder((t) => t.pending, (t) => t.tenant))
      .slice(0, count);
  }

  /**
   * Sets or clears the queue's ceiling on its active jobs (meta field `limit`); a ceiling set where
   * none was then marks the jobs already active, a page a call (see lua/queueLimit).
   */
  async queueLimit(k: LaneKeys, limit: number | null): Promise<void> {
    let cursor = String(await this.scripts.run('queueLimit', k.queue, 'queueLimit', [k.meta, k.wake, k.active], [limit ?? '']));
    while (cursor !== '0') {
      cursor = String(await this.scripts.run('queueLimit', k.queue, 'queueLimit', [k.meta, k.wake, k.active], [limit ?? '', cursor]));
    }
  }

  /** The tenant's state; its pending (and, without a limit, active) count summed over its lanes, a page of 1,000 lanes a call. */
  async info(k: LaneKeys, tenant: string): Promise<TenantInfo> {
    let cursor = '0';
    let pending = 0;
    let active = 0;
    let r: unknown[];
    do {
      r = (await this.scripts.run('tenant', k.queue, 'tenantInfo',
        [k.ringSet, k.tenantInfo(tenant), k.tenantRing(tenant), k.tenantLanes(tenant), k.timers, k.gactive], [k.base, tenant, cursor])) as unknown[];
      pending += Number(r[1]);
      // NOTE: without a limit the script counts the page's active jobs (no count is kept then).
      active = Number(r[4]) < 0 ? active + Number(r[2]) : Number(r[2]);
      cursor = String(r[9]);
    } while (cursor !== '0');
    const limit = Number(r[4]);
    const pausedUntil = Number(r[6]);
    return {
      tenant,
      lanes: Number(r[0]),
      pending,
      active,
      weight: Number(r[3]),
      limit: limit < 0 ? null : limit,
      paused: Number(r[5]) === 1,
      pausedUntil: pausedUntil < 0 ? null : pausedUntil,
      pauseReason: r[7] ? String(r[7]) : null,
      inRing: Number(r[8]) === 1,
    };
  }
}

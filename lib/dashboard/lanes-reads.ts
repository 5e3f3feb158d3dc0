import type { LaneInfo, LaneJob, LanePage, LanePosition, LanesService, QueueStats, TenantInfo } from '../index';

/** @internal A lane as the page shows it. */
export type DashboardLane = LaneInfo;

/** @internal The queue-wide numbers the page shows, the queue-wide pause included. */
export type DashboardStats = QueueStats;

/** @internal A tenant as the page shows it (its lanes' sums, its settings, whether it is on the ring). */
export type DashboardTenant = TenantInfo;

/** @internal Where a pending job stands. */
export type DashboardPosition = LanePosition;

/** @internal What each lane was served over the last minute, beside what its weight entitles it to. */
export type DashboardShares = Awaited<ReturnType<LanesService['shares']>>;

/** @internal A lane and how long its head job has waited (the oldest heads first). */
export type DashboardHeadWait = Awaited<ReturnType<LanesService['oldestLanes']>>[number];

/**
 * @internal The reads the dashboard makes, all on `LanesService` and each bounded by a page size,
 * never by the number of lanes: stats, top lanes, pages of lanes, one lane, the ring's head, a
 * lane's head job and where it stands, dead letters, the top tenants and one tenant, the lanes served
 * most in the last minute and the lanes whose heads have waited longest. It never calls `lanes()` (O(lanes)).
 */
export class LanesReads {
  constructor(private readonly lanes: LanesService) {}

  stats(queue: string): Promise<DashboardStats> {
    return this.lanes.stats(queue);
  }

  topLanes(queue: string, count: number): Promise<DashboardLane[]> {
    return this.lanes.topLanes(queue, count);
  }

  scanLanes(queue: string, cursor: string | undefined, count: number): Promise<LanePage> {
    return this.lanes.scanLanes(queue, cursor === undefined ? { count } : { cursor, count });
  }

  position(queue: string, jobId: string): Promise<DashboardPosition | null> {
    return this.lanes.position(queue, jobId);
  }

  lane(queue: string, group: string): Promise<DashboardLane> {
    return this.lanes.lane(queue, group);
  }

  ring(queue: string, count: number): Promise<string[]> {
    return this.lanes.ring(queue, count);
  }

  head(queue: string, group: string): Promise<string | null> {
    return this.lanes.peek(queue, group, 1).then((ids) => ids[0] ?? null);
  }

  /** The names of the `count` tenants with most pending (bounded: see lua/topTenants-1.lua). */
  topTenants(queue: string, count: number): Promise<string[]> {
    return this.lanes.topTenants(queue, count).then((top) => top.map((t) => t.tenant));
  }

  tenant(queue: string, tenant: string): Promise<DashboardTenant> {
    return this.lanes.tenant(queue, tenant);
  }

  dead(queue: string, offset: number, count: number): Promise<LaneJob[]> {
    return this.lanes.dead(queue, { offset, count });
  }

  /** The `count` lanes served most over the window, with their entitled shares and the window's Jain index. */
  shares(queue: string, count: number): Promise<DashboardShares> {
    return this.lanes.shares(queue, { count });
  }

  /** The `count` lanes whose head jobs have waited longest, longest first. */
  oldestLanes(queue: string, count: number): Promise<DashboardHeadWait[]> {
    return this.lanes.oldestLanes(queue, count);
  }
}

import type { FairShares, LaneHeadWait, LaneInfo, QueueStats, TenantPending } from '../interfaces';

/**
 * @internal One queue as one scrape saw it: `stats`, `topLanes`, `topTenants`, `oldestLanes` and
 * `shares` of LanesService, and this process's served tally of the lanes reported.
 */
export interface QueueSnapshot {
  queue: string;
  stats: QueueStats;
  top: LaneInfo[];
  topTenants: TenantPending[];
  /** The `topLanes` lanes with the oldest heads, longest first. */
  oldest: LaneHeadWait[];
  /** Service over the server's window, for the `topLanes` lanes served most (10 when `topLanes` is 0). */
  shares: FairShares;
  /** `echomq_lane_served_total`: lane → jobs this process claimed of it (see ServedTally). */
  served: ReadonlyMap<string, number>;
}

import type { LaneInfo, QueueStats, TenantPending } from '../interfaces';

/** @internal One queue as one scrape saw it: `stats`, `topLanes` and `topTenants` of LanesService. */
export interface QueueSnapshot {
  queue: string;
  stats: QueueStats;
  top: LaneInfo[];
  topTenants: TenantPending[];
}

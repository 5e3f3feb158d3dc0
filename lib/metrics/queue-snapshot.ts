import type { LaneInfo, QueueStats } from '../interfaces';

/** @internal One queue as one scrape saw it: `stats` and `topLanes` of LanesService. */
export interface QueueSnapshot {
  queue: string;
  stats: QueueStats;
  top: LaneInfo[];
}

import type { LaneInfo } from '../interfaces';

/**
 * @internal The `QueueStats` shape of the contract, as far as the metrics read it (kept here so the
 * metrics depend on the contract, not on one version of the engine's files).
 */
export interface QueueStatsReading {
  totals: { submitted: number; completed: number; retried: number; dead: number; reaped: number };
  pending: number;
  scheduled: number;
  active: number;
  dead: number;
  lanes: number;
  ringLength: number;
  pausedLanes: number;
}

/** @internal What a scrape reads from the server: `stats` and `topLanes` of the contract. */
export interface QueueReader {
  stats(queue: string): Promise<QueueStatsReading>;
  topLanes(queue: string, count: number): Promise<LaneInfo[]>;
}

/** @internal One queue as one scrape saw it. */
export interface QueueSnapshot {
  queue: string;
  stats: QueueStatsReading;
  top: LaneInfo[];
}

/** Options of {@link LanesService.shares}. */
export interface SharesOptions {
  /** How many lanes, those served most in the window first (1..1,000). @default 10 */
  count?: number;
}

/** One lane's service over the window of {@link FairShares}. */
export interface LaneShare {
  group: string;
  /** The lane's tenant; null when it has none. */
  tenant: string | null;
  /** Jobs claimed from the lane in the window (a job claimed again after a reap or retry counts again). */
  served: number;
  /** The work charged to the lane in the window: declared cost (`cost` fairness) or measured ms (`time`); equal to `served` in `jobs` fairness. */
  work: number;
  /** The lane's weight now (1 unless set). */
  weight: number;
  /**
   * The fraction (0..1) of the window's service its weight entitles it to among the lanes backlogged
   * now (under tenants, its tenant's share among the queue's entries times its share within the
   * tenant); 0 while it holds no pending job.
   */
  entitled: number;
  /** It holds pending jobs now. */
  backlogged: boolean;
}

/** What each lane was served over the last `windowMs` of the server clock ({@link LanesService.shares}). */
export interface FairShares {
  /** 60,000. */
  windowMs: number;
  /** The lanes served most in the window, most first (counts within ±max(2, 10%) of exact). */
  lanes: LaneShare[];
  /**
   * Jain's index, (Σx)² ÷ (n·Σx²), of x = served ÷ weight (work ÷ weight in `cost`/`time` fairness) over
   * the backlogged lanes among those served most and those with the oldest heads; 1 when every one got
   * its weight's share, 1/n when one got everything. null with fewer than two such lanes.
   */
  jain: number | null;
}

/** @internal A lane and how long its head job has waited, as the oldest-heads read returns it. */
export interface LaneHeadWait {
  group: string;
  headWaitMs: number;
}

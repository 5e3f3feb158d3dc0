import type { FairnessBy } from './lanes-options.interface';
/** One job as it is now ({@link LanesService.job}, {@link LanesService.waitFor}). */
export interface JobInfo<T = unknown> {
  id: string;
  queue: string;
  group: string;
  payload: T;
  state: 'pending' | 'scheduled' | 'active' | 'dead' | 'completed';
  /** Claims so far (0 until the first claim). */
  attempt: number;
  /** The job's own attempt budget, else the module's default. */
  maxAttempts: number;
  /** ms since epoch, server clock. */
  submittedAt: number;
  /** Scheduled: when it falls due (server clock). */
  dueAt?: number;
  /** Active: when its lease ends (server clock). */
  leaseUntil?: number;
  /** After a failure: its reason. */
  lastError?: string;
  /** Completed: what the handler returned (kept rows; also given to waiters of unkept ones). */
  result?: unknown;
  /** Completed or dead: when (server clock). */
  finishedAt?: number;
  /** The last progress its holder reported ({@link LanesService.progress}): a number or a JSON object. */
  progress?: JobProgress;
}

/** What {@link LanesService.progress} keeps: a number, or a JSON object (at most 64 KiB as JSON). */
export type JobProgress = number | Record<string, unknown>;

/** Where a pending job stands ({@link LanesService.position}). */
export interface LanePosition {
  /** Jobs ahead of it in its own lane (0: it is the lane's head). */
  laneRank: number;
  /** Its lane's place in the ring (0: served by the next claim); null while the lane is out of the ring. */
  ringIndex: number | null;
  ringLength: number;
  /** Jobs that claims serve before it if nothing else is submitted or falls due. */
  ahead: number;
  /** True when `ahead` is exact for one claimer that completes each job before its next claim; false for an upper bound. */
  exact: boolean;
  /** `ahead` ÷ the queue's completion rate over the last minute; null without a rate. */
  estimatedWaitMs: number | null;
  /** Its lane's tenant; null when it has none (then `ringIndex` is the lane's own place). */
  tenant: string | null;
  /** Under a tenant: its lane's place on the tenant's ring (`ringIndex` is then the tenant's place on the queue's ring, null while the lane or the tenant is out of its ring); null otherwise or while out of it. */
  tenantRingIndex: number | null;
}

/** The queue's counters and sizes ({@link LanesService.stats}). */
export interface QueueStats {
  /** Since the queue began, kept in the server (the same from every process). */
  totals: {
    submitted: number; completed: number; retried: number; dead: number; reaped: number;
    /** Jobs removed before they completed: by cancel, drain, or clean of the dead set. */
    cancelled: number;
  };
  /** Jobs in each state now. */
  pending: number;
  scheduled: number;
  active: number;
  dead: number;
  /** Lanes with work or settings, lanes on the ring, paused lanes. */
  lanes: number;
  ringLength: number;
  pausedLanes: number;
  /** The whole queue is paused (pauseQueue, or the EchoMQ reference's meta field `paused`). */
  paused: boolean;
  /** The queue's ceiling on its active jobs over all lanes and tenants (`queueLimit`); null when none. */
  limit: number | null;
  /** What a lane's share counts (see {@link LanesService.fairness}). */
  fairness: { by: FairnessBy };
  /** Completions per second over the last 60 s (server clock). */
  completedPerSec: number;
  /**
   * The largest `headWaitMs` of the queue (how long its longest-waiting lane head has been ready to
   * serve, paused lanes too) and that lane; null while no lane holds a pending job. The starvation signal.
   */
  oldestWaitMs: number | null;
  oldestLane: string | null;
  /** How many shards the queue is spread over (1 unless `shards()` spread it); the figures above are their sums. */
  shards: number;
  /** Each shard's ring length (its serviceable lanes), shard 0 first: what claims weigh the shards by. */
  shardRingLengths: number[];
}

/** One page of {@link LanesService.scanLanes}. */
export interface LanePage {
  lanes: import('./lane-job.interface').LaneInfo[];
  /** Pass it to the next call; null when the scan is done. */
  cursor: string | null;
}

/** Options of {@link LanesService.scanLanes}. */
export interface ScanLanesOptions {
  /** The cursor a previous page returned; omit to start. */
  cursor?: string;
  /** About how many lanes per page (1..1,000). @default 100 */
  count?: number;
}

/** Options of {@link LanesService.drain}. */
export interface DrainOptions {
  /** Only this lane's pending and scheduled jobs. @default every lane */
  group?: string;
}

/** Options of {@link LanesService.clean}. */
export interface CleanOptions {
  /** Only jobs that finished (died or completed) at least this many ms ago, by the server clock. @default 0 */
  olderThanMs?: number;
  /** Remove at most this many. @default no limit */
  limit?: number;
}

/** Options of {@link LanesService.obliterate}. */
export interface ObliterateOptions {
  /** Delete the queue even while jobs are active (their holders' acks then find nothing). @default false */
  force?: boolean;
}

/** Options of {@link LanesService.waitFor}. */
export interface WaitForOptions {
  /** Reject with an EchoMqError of code TIMEOUT after this many ms (1..86,400,000). */
  timeoutMs: number;
}

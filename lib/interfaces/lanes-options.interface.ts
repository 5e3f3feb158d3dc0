/** Options of {@link LanesService.submit}. */
export interface SubmitOptions {
  /**
   * A JOB id minted with `mintJobId()`; a live job with this id is not admitted twice (on a sharded
   * queue, within the shard of the job's lane: the same id under a lane of another shard may be).
   */
  jobId?: string;
  /**
   * Idempotency key: while a job with this key is live, submits return its id (on a sharded queue,
   * within the shard of the job's lane: resubmit with the same group).
   */
  dedupKey?: string;
  /** Attempts before the job is dead-lettered (integer >= 1). @default the module's maxAttempts */
  maxAttempts?: number;
  /** Admit the job into its lane only after this many ms (integer >= 0). @default 0 */
  delayMs?: number;
  /**
   * The lane's tenant (an account, a workspace; a name by the group rules): the tenant's lanes
   * share one turn of the queue's ring. Set by the submit that creates the lane; naming another
   * tenant for a lane that holds jobs rejects. Left out, the job goes to the lane whatever its tenant.
   */
  tenant?: string;
  /**
   * The job's work (integer 1..1,000,000), what `cost` fairness charges its lane and tenant when it
   * is served (see {@link LanesService.fairness}): work, never urgency. Kept in every fairness mode.
   * @default 1
   */
  cost?: number;
}

/**
 * What a lane's share of the queue counts (see {@link LanesService.fairness}): `jobs` (one turn of
 * the ring, one job), `cost` (each job's declared `cost`), or `time` (the server-clock time from
 * claim to ack). Weights are the shares in every mode.
 */
export type FairnessBy = 'jobs' | 'cost' | 'time';

/** Options of {@link LanesService.fairness}. */
export interface FairnessOptions {
  by: FairnessBy;
}

/** One item of {@link LanesService.submitMany}. */
export interface SubmitItem<T = unknown> {
  /** The lane to admit into. */
  group: string;
  /** The JSON-serialisable payload. */
  payload: T;
  /** Per-job options. */
  opts?: SubmitOptions;
}

/** Options of {@link LanesService.claim}. */
export interface ClaimOptions {
  /** Lease length in ms. @default the module's leaseMs */
  leaseMs?: number;
}

/** Options of {@link LanesService.wclaim}. */
export interface WeightedClaimOptions extends ClaimOptions {
  /** Cap on the number of jobs served in this turn (integer from 1 to 1,000). */
  max?: number;
}

/** Options of {@link LanesService.wclaimMany}. */
export interface WeightedClaimManyOptions extends WeightedClaimOptions {
  /**
   * Stop taking turns once this many jobs are served (integer from 1 to 1,000); the turn that
   * reaches it is served whole. @default no stop before `turns` turns or 1,000 jobs
   */
  untilJobs?: number;
}

/** Options of {@link LanesService.fail}, for callers that override the module defaults. */
export interface FailOptions {
  /** Attempts before dead-lettering, for jobs that were submitted without their own. */
  maxAttempts?: number;
  /** The retry delay of this failure (`fail` only). @default the module's backoff */
  backoff?: import('./echomq-module-options.interface').EchoMqBackoff;
  /** Dead-letter the job now, whatever attempts it has left (what a handler's UnrecoverableError does). @default false */
  dead?: boolean;
}

/**
 * Options of {@link LanesService.reap}. A reaped lease always goes back to its lane's head (or dead
 * when its attempts are spent): `fail`'s `backoff` and `dead` do not apply, and are refused.
 */
export interface ReapOptions {
  /** Attempts before dead-lettering, for jobs that were submitted without their own. @default the module's maxAttempts */
  maxAttempts?: number;
}

/** Options of {@link LanesService.complete} and {@link LanesService.completeMany}. */
export interface CompleteOptions {
  /** How long the completed row is kept, in ms (0 to 30 days). @default the module's keepCompletedMs */
  keepCompletedMs?: number;
}

/** What {@link LanesService.fail} did with the job. */
export type FailOutcome = 'retry' | 'dead' | 'stale';

/** Options of {@link LanesService.pause}. */
export interface PauseOptions {
  /** Resume by itself after this many ms, by the server clock (integer >= 1). @default until resume() */
  forMs?: number;
  /** Why the lane is paused (at most 200 bytes), reported by lane() while it is. */
  reason?: string;
}

/** One held job in {@link LanesService.extendMany}. */
export interface HeldLease {
  /** The job id. */
  jobId: string;
  /** The attempt number the holder claimed it under (`LaneJob.attempt`). */
  token: number;
}

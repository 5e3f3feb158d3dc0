/** A job as a claimer holds it. */
export interface LaneJob<T = unknown> {
  /** The job id: `JOB` + 11 base62 characters, in mint order. */
  id: string;
  /** The queue it belongs to. */
  queue: string;
  /** Its lane (tenant, user, room). */
  group: string;
  /** The submitted payload, parsed from JSON. */
  payload: T;
  /** 1 on the first claim, +1 on every claim: the fencing token for complete/fail/extend. */
  attempt: number;
  /** End of the lease in ms since epoch, by the server clock (0 for a job that is not held). */
  leaseUntil: number;
  /** When it was submitted, ms since epoch by the server clock. */
  submittedAt: number;
  /** The reason of the last failure, when there was one. */
  lastError?: string;
}

/** One lane's state. */
export interface LaneInfo {
  /** The lane (group) name. */
  group: string;
  /** Jobs waiting in the lane. */
  pending: number;
  /** Jobs of the lane currently leased. */
  active: number;
  /** Heads served per weighted turn (1 when unset). */
  weight: number;
  /** Concurrency ceiling, null when none. */
  limit: number | null;
  /** Whether the lane is paused. */
  paused: boolean;
  /** Whether the lane is on the ring, i.e. serviceable right now. */
  inRing: boolean;
  /** Rate ceiling: at most `max` claims in any window of `perMs` ms (server clock); null when none. */
  rate: LaneRate | null;
  /** When a timed pause ends, ms since epoch by the server clock; null when not paused or paused until resumed. */
  pausedUntil: number | null;
  /** The reason given to `pause`, while the lane is paused; null when none. */
  pauseReason: string | null;
  /** The lane's tenant (see `SubmitOptions.tenant`); null when it has none. */
  tenant: string | null;
  /** The most jobs the lane may hold pending or scheduled (`maxDepth`); null when none. */
  maxDepth: number | null;
  /** Whether the lane keeps submit order (`ordered`): one job active at a time, a failed job keeps the head. */
  ordered: boolean;
  /**
   * How long (ms, server clock) the lane's head job has waited since it became ready (its submit, or
   * the due time of a delay or a retry), whether or not the lane is on the ring: the starvation
   * signal, a paused lane's head keeps ageing. Null when the lane holds no pending job.
   */
  headWaitMs: number | null;
}

/** A lane's rate ceiling: at most `max` jobs claimed in any window of `perMs` ms. */
export interface LaneRate {
  /** Claims allowed per window (integer from 1 to 1,000,000). */
  max: number;
  /** The window in ms (integer from 1 to 86,400,000). */
  perMs: number;
}

import { mintTimeOf } from '../ids/job-id';
import type { FairnessBy } from '../interfaces';
import { splitAt } from './job-ready-time';

/** @internal A job row as readJob/watchJob return it (and as finished jobs are announced). */
export interface JobRow {
  id: string;
  state: string;
  group: string;
  attempts: number;
  payload: string;
  submittedAt: number;
  /** The job's own attempt budget, 0 when it has none. */
  max: number;
  lastError: string;
  /** finishedAt, 0 when not finished. */
  done: number;
  /** The result's JSON text, '' for none. */
  result: string;
  /** Lease deadline (active) or due time (scheduled), 0 otherwise. */
  dueOrLease: number;
  /** The progress its holder reported, as JSON text ('' for none). */
  progress: string;
}

/** @internal locateJob's reply. */
export interface LocatedJob {
  laneRank: number;
  ringIndex: number | null;
  ringLength: number;
  ahead: number;
  exact: boolean;
  /** Completions of the queue's current busy spell, and the ms they took (presentRate.lua). */
  rateCount: number;
  rateSpanMs: number;
  tenant: string | null;
  tenantRingIndex: number | null;
}

/** @internal readStats' reply. */
export interface StatsRow {
  submitted: number; completed: number; retried: number; deadTotal: number; reaped: number;
  scheduled: number; active: number; dead: number; lanes: number; ringLength: number; pausedLanes: number;
  completedLastMinute: number; paused: boolean; cancelled: number; limit: number | null; fairness: FairnessBy;
  /** The oldest head below is exact (false: its budget ran out, see lua/oldestLanes-1.lua). */
  oldestDone: boolean; oldestLane: string | null; oldestReady: number | null;
  /** The last head entry it checked (its bound and member, '' when none): where oldestLanes goes on from. */
  oldestAfter: [string, string];
  /** The server's clock when it read (ms). */
  now: number;
}

/** @internal The flat reply of readJob/watchJob (see lua/includes/readJob.lua); null for an empty one. */
export function toJobRow(r: unknown[]): JobRow | null {
  if (!r || r.length === 0) return null;
  const s = (i: number): string => (r[i] == null ? '' : String(r[i]));
  return {
    id: s(0), state: s(1), group: s(2), attempts: Number(s(3)) || 0, payload: s(4), submittedAt: splitAt(s(5)).submitted || mintTimeOf(s(0)),
    max: Number(s(6)) || 0, lastError: s(7), done: Number(s(8)) || 0, result: s(9), dueOrLease: Number(s(10)) || 0, progress: s(11),
  };
}

/** @internal The message finishJob publishes (a JSON object of the row's fields). */
export function announcedRow(message: string): JobRow | null {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(message) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof m !== 'object' || m === null || typeof m.id !== 'string') return null;
  const s = (v: unknown): string => (v == null ? '' : String(v));
  return {
    id: m.id, state: s(m.state), group: s(m.group), attempts: Number(m.attempts) || 0, payload: s(m.payload),
    submittedAt: splitAt(m.at).submitted || mintTimeOf(m.id), max: Number(m.max) || 0, lastError: s(m.last_error), done: Number(m.done) || 0,
    result: s(m.result), dueOrLease: 0, progress: '',
  };
}

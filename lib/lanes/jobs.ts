import { POSITION_EXACT_RING } from '../echomq.constants';
import type { JobInfo, LanePosition } from '../interfaces';
import type { JobRow } from '../scripts/job-replies';
import { checkJobId } from '../validation/validate';
import type { LaneContext } from './lane-context';

/** @internal Reads of one job: its row (job) and where it stands while pending (position). */
export class LaneJobs {
  constructor(private readonly ctx: LaneContext) {}

  async job(queue: string, jobId: unknown): Promise<JobInfo | null> {
    const k = this.ctx.keysOf(queue);
    const row = await this.ctx.scripts.job(k, checkJobId('jobId', jobId, k.queue));
    return row && toJobInfo(k.queue, row, this.ctx.options.maxAttempts);
  }

  async position(queue: string, jobId: unknown): Promise<LanePosition | null> {
    const k = this.ctx.keysOf(queue);
    const p = await this.ctx.scripts.locate(k, checkJobId('jobId', jobId, k.queue), POSITION_EXACT_RING);
    if (!p) return null;
    // NOTE: the rate is that of the queue's current busy spell (presentRate.lua), not the minute's
    // average, which a quiet stretch before a burst would dilute: wait = ahead x span / count.
    const estimatedWaitMs = p.rateCount > 0 ? Math.round((p.ahead * p.rateSpanMs) / p.rateCount) : null;
    return { laneRank: p.laneRank, ringIndex: p.ringIndex, ringLength: p.ringLength, ahead: p.ahead, exact: p.exact, estimatedWaitMs,
      tenant: p.tenant, tenantRingIndex: p.tenantRingIndex };
  }
}

/** @internal A job row as the public JobInfo; `defaultMax` is the module's maxAttempts. */
export function toJobInfo(queue: string, row: JobRow, defaultMax: number): JobInfo {
  const info: JobInfo = {
    id: row.id,
    queue,
    group: row.group,
    payload: parseJson(row.payload),
    state: row.state as JobInfo['state'],
    attempt: row.attempts,
    maxAttempts: row.max > 0 ? row.max : defaultMax,
    submittedAt: row.submittedAt,
  };
  if (row.state === 'scheduled' && row.dueOrLease) info.dueAt = row.dueOrLease;
  if (row.state === 'active' && row.dueOrLease) info.leaseUntil = row.dueOrLease;
  if (row.lastError) info.lastError = row.lastError;
  if (row.result !== '') info.result = parseJson(row.result);
  if (row.progress !== '') info.progress = parseJson(row.progress) as JobInfo['progress'];
  if (row.done && (row.state === 'completed' || row.state === 'dead')) info.finishedAt = row.done;
  return info;
}

/** JSON text as a value; a row written by something else may hold text that is not JSON: kept as text. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

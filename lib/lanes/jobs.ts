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
    const id = checkJobId('jobId', jobId, k.queue);
    const row = await this.ctx.shards.byId(k, id, (shard) => this.ctx.scripts.job(shard, id), (r) => r !== null);
    return row && toJobInfo(k.queue, row, this.ctx.maxAttemptsOf(k.queue));
  }

  async position(queue: string, jobId: unknown): Promise<LanePosition | null> {
    const k = this.ctx.keysOf(queue);
    const id = checkJobId('jobId', jobId, k.queue);
    const { shard, p } = await this.ctx.shards.byId(k, id, async (s) => ({ shard: s, p: await this.ctx.scripts.locate(s, id, POSITION_EXACT_RING) }), (r) => r.p !== null);
    if (!p) return null;
    // NOTE: the rate is that of the queue's current busy spell (presentRate.lua), not the minute's
    // average, which a quiet stretch before a burst would dilute: wait = ahead x span / count.
    const estimatedWaitMs = p.rateCount > 0 ? Math.round((p.ahead * p.rateSpanMs) / p.rateCount) : null;
    const at = { laneRank: p.laneRank, ringIndex: p.ringIndex, ringLength: p.ringLength, ahead: p.ahead, exact: p.exact, estimatedWaitMs,
      tenant: p.tenant, tenantRingIndex: p.tenantRingIndex };
    if (shard === k && (await this.ctx.shards.count(k)) === 1) return at;
    // NOTE: claims spread over the shards by their rings' sizes (shards/shard-visits.ts), so while
    // the shard serves its `ahead` claims the queue serves about total/own times as many, give or
    // take the interleaving: one more cycle of every serviceable lane bounds it (the README's δ).
    // Those are the whole queue's claims, served at the whole queue's rate: the sum of its shards'.
    const shards = await this.ctx.shards.all(k);
    const [sizes, rates] = await Promise.all([
      Promise.all(shards.map((s) => this.ctx.scripts.ringSize(s))),
      Promise.all(shards.map((s) => (s.shard === shard.shard ? { count: p.rateCount, spanMs: p.rateSpanMs } : this.ctx.scripts.shardRate(s)))),
    ]);
    const total = sizes.reduce((a, b) => a + b, 0);
    const own = Math.max(1, sizes[shard.shard]);
    const ahead = Math.ceil((p.ahead * total) / own) + total;
    const perMs = rates.reduce((sum, r) => sum + (r.count > 0 && r.spanMs > 0 ? r.count / r.spanMs : 0), 0);
    return { ...at, ringLength: total, ahead, exact: false, estimatedWaitMs: perMs > 0 ? Math.round(ahead / perMs) : null };
  }
}

/** @internal A job row as the public JobInfo; `defaultMax`: the attempts of a job whose row names none (LaneContext.maxAttemptsOf). */
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

import { mintTimeOf } from '../ids/job-id';
import type { LaneJob } from '../interfaces';
import { setJobTraceContext } from '../tracing/job-trace-context';
import { setJobReadyAt, splitAt } from './job-ready-time';

// Jobs from the replies of the serving scripts (claim, wclaim, wclaimMany, deadList): six values per
// job from a given place: id, group, attempt, payload, submitted_at (the row's `at`, see splitAt; '0':
// read the id's mint time) and last_error (or the pair { last_error, tc } for a job with a trace context).

type Reply = unknown;

/**
 * The last_error of a reply and the job's stored trace context: a job submitted with a trace
 * context comes back with the pair { last_error, tc } in that place.
 */
function lastErrorOf(r: Reply[], at: number): { lastError: string; tc?: string } {
  const sixth = r[at + 5];
  if (Array.isArray(sixth)) return { lastError: sixth[0] as string, tc: String(sixth[1]) };
  return { lastError: sixth as string };
}

/** @internal A job of a reply (id, group, attempt, payload, submitted_at, last_error from `at`) but its payload. */
export function jobFields(queue: string, r: Reply[], at: number, leaseUntil: number, { lastError } = lastErrorOf(r, at)): Omit<LaneJob, 'payload'> {
  const job: Omit<LaneJob, 'payload'> = {
    id: r[at] as string,
    queue,
    group: r[at + 1] as string,
    attempt: Number(r[at + 2]),
    leaseUntil,
    submittedAt: 0,
  };
  // NOTE: most rows have no `at` ('0': the id's mint time); only those split it (see splitAt).
  const stamp = r[at + 4];
  if (stamp === '0' || stamp == null) {
    job.submittedAt = mintTimeOf(job.id);
  } else {
    const { submitted, ready } = splitAt(stamp);
    job.submittedAt = submitted || mintTimeOf(job.id);
    if (ready !== undefined) setJobReadyAt(job as LaneJob, ready);
  }
  if (lastError) job.lastError = lastError;
  return job;
}

/** @internal A job of a reply; undefined when its payload is not JSON. */
export function toJob(queue: string, r: Reply[], at: number, leaseUntil: number): LaneJob | undefined {
  let payload: unknown;
  try {
    payload = JSON.parse(r[at + 3] as string);
  } catch {
    return undefined;
  }
  const stored = lastErrorOf(r, at);
  const job = jobFields(queue, r, at, leaseUntil, stored) as LaneJob;
  job.payload = payload;
  if (stored.tc !== undefined) setJobTraceContext(job, stored.tc);
  return job;
}

/** @internal A claim script's reply, { leaseUntil, dueIn, then six values per job }; jobs whose payload is not JSON apart. */
export function toClaim(queue: string, reply: Reply[]): { jobs: LaneJob[]; bad: { id: string; token: number }[]; dueInMs: number } {
  const leaseUntil = Number(reply[0]);
  const jobs: LaneJob[] = [];
  const bad: { id: string; token: number }[] = [];
  for (let i = 2; i < reply.length; i += 6) {
    const job = toJob(queue, reply, i, leaseUntil);
    if (job) jobs.push(job);
    else bad.push({ id: reply[i] as string, token: Number(reply[i + 2]) });
  }
  return { jobs, bad, dueInMs: Number(reply[1]) };
}

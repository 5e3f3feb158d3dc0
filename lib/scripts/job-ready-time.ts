import type { LaneJob } from '../interfaces';

/**
 * @internal A row's field `at` read apart: "<submitted>" (a caller-given id's submit time),
 * "<submitted>:<ready>" or ":<ready>" once the job became claimable again other than by its submit
 * (due time, retry, reap, hand-back; see lua/includes/markReady.lua), or nothing. Times in ms,
 * server clock; `submitted` 0 when the id's mint time is the submit time.
 */
export function splitAt(raw: unknown): { submitted: number; ready?: number } {
  const text = raw == null ? '' : String(raw);
  const colon = text.indexOf(':');
  if (colon < 0) return { submitted: Number(text) || 0 };
  return { submitted: Number(text.slice(0, colon)) || 0, ready: Number(text.slice(colon + 1)) || undefined };
}

/**
 * @internal When a claimed job last became claimable, when that was not its submit: kept beside the
 * job object rather than on it, so `LaneJob` stays the contract's shape. Written by the claim reply
 * mapper, read by the claim loop for the wait it reports.
 */
const readyAt = new WeakMap<LaneJob, number>();

/** @internal Attaches a claimed job's ready time. */
export function setJobReadyAt(job: LaneJob, at: number): void {
  readyAt.set(job, at);
}

/** @internal The time a claimed job became claimable, when that was not its submit. */
export function jobReadyAt(job: LaneJob): number | undefined {
  return readyAt.get(job);
}

import type { LaneJob } from '../interfaces';

/**
 * @internal The trace context a claimed job carried in its row (field `tc`), kept beside the job
 * object rather than on it, so `LaneJob` stays the contract's shape. Written by the claim reply
 * mapper, read by the tracing around the handler.
 */
const carried = new WeakMap<LaneJob, string>();

/** @internal Attaches a claimed job's stored trace context. */
export function setJobTraceContext(job: LaneJob, tc: string): void {
  carried.set(job, tc);
}

/** @internal The trace context a job was submitted under, if any. */
export function jobTraceContext(job: LaneJob): string | undefined {
  return carried.get(job);
}

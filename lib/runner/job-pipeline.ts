import type { LoggerService } from '@nestjs/common';
import { performance } from 'perf_hooks';
import { emitLaneEvent } from '../events/lane-event-listeners';
import type { LaneConsumerDescriptor, LaneJob } from '../interfaces';
import { jobReadyAt } from '../scripts/job-ready-time';
import { traceJob } from '../tracing/job-tracing';
import type { JobObservers } from './job-observers';

/**
 * @internal Everything around one consumer's handler that is not claiming or acknowledging: the
 * `active` event, the consumer span, the observers' timings (the interceptors are inside the
 * handler itself, see lane-handler.factory), and the `completed` / `failed` / `lost` events once
 * the server has settled the job. The claim loop calls it; it never changes a job's outcome.
 */
export class JobPipeline {
  constructor(
    private readonly consumer: LaneConsumerDescriptor,
    private readonly leaseMs: number,
    private readonly logger: LoggerService,
    private readonly observers?: JobObservers,
  ) {}

  /** Runs the handler for one job; resolves with its result, rejects with what it threw. */
  async run(job: LaneJob): Promise<unknown> {
    emitLaneEvent(this.consumer.events, 'active', job.id, [job], this.logger);
    const observers = this.observers?.all ?? [];
    if (observers.length === 0) return traceJob(job, async () => this.consumer.handler(job));
    // NOTE: the lease was taken at the claim, so leaseUntil − lease is the claim time by the server
    // clock, the same clock as the ready time (host clocks may differ). A job is ready from its due
    // time, retry, reap or hand-back when it has one (markReady), else from its submit.
    const ready = jobReadyAt(job) ?? (job.attempt === 1 ? job.submittedAt : undefined);
    const waitMs = ready === undefined ? undefined : Math.max(job.leaseUntil - this.leaseMs - ready, 0);
    for (const o of observers) o.started?.(job, waitMs);
    const t0 = performance.now();
    try {
      const result = await traceJob(job, async () => this.consumer.handler(job));
      const ms = performance.now() - t0;
      for (const o of observers) o.handled?.(job, 'completed', ms);
      return result;
    } catch (err) {
      const ms = performance.now() - t0;
      for (const o of observers) o.handled?.(job, 'failed', ms);
      throw err;
    }
  }

  /** The server accepted the completion. */
  completed(job: LaneJob, result: unknown): void {
    emitLaneEvent(this.consumer.events, 'completed', job.id, [job, result], this.logger);
  }

  /** The server recorded the failure: the job is retried or dead. */
  failed(job: LaneJob, error: unknown, outcome: 'retry' | 'dead'): void {
    emitLaneEvent(this.consumer.events, 'failed', job.id, [job, error, outcome], this.logger);
  }

  /** The lease was lost before the job was settled: its result (or failure) was refused. */
  lost(job: LaneJob): void {
    emitLaneEvent(this.consumer.events, 'lost', job.id, [job], this.logger);
  }
}

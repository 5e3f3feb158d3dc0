import type { LaneJob } from '../interfaces';
import type { LanesService } from '../lanes.service';

interface PendingAck {
  job: LaneJob;
  result: unknown;
  resolve: (ok: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * @internal The acks of a claim loop: those queued in one turn of the event loop go to the server
 * in one completeMany call, sent in an immediate so that it leaves before the claim that the freed
 * slots trigger (also an immediate, queued after it).
 */
export class AckBatch {
  private readonly pending: PendingAck[] = [];

  constructor(
    private readonly lanes: LanesService,
    private readonly queue: string,
    private readonly keepCompletedMs: number | undefined,
  ) {}

  /** Completes the job with its result; resolves false when the server refused (the lease was lost). */
  ack(job: LaneJob, result: unknown): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ job, result, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    try {
      const results = await this.lanes.completeMany(
        this.queue, batch.map((a) => ({ jobId: a.job.id, token: a.job.attempt, result: a.result })),
        { keepCompletedMs: this.keepCompletedMs });
      batch.forEach((a, i) => a.resolve(results[i]));
    } catch (err) {
      for (const a of batch) a.reject(err);
    }
  }
}

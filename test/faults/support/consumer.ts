import type { LaneJob } from '../../../lib/interfaces';
import type { LanesService } from '../../../lib/lanes.service';
import type { RedisClient } from '../../../lib/scripts/lane-scripts';
import { pause } from './wait';

/** How a {@link FaultConsumer} claims and what it does with each job. */
export interface FaultConsumerOptions {
  /** The service to claim through (its connection carries claim, complete and reap). */
  lanes: LanesService;
  queue: string;
  /** A connection of its own for the blocking wait on the wake list. */
  blocking: RedisClient;
  /** The work; resolve to complete the job, throw to fail it. */
  handle: (job: LaneJob) => Promise<void> | void;
  /** Jobs per claimMany call (or the `max` of a weighted claim). @default 8 */
  batch?: number;
  /** Claim with wclaim instead of claimMany. @default false */
  weighted?: boolean;
  /** Lease of each claim. @default 2_000 */
  leaseMs?: number;
  /** How often the loop reaps expired leases. @default 250 */
  reapEveryMs?: number;
  /** Longest blocking wait on the wake list, in seconds. @default 0.2 */
  blockSeconds?: number;
  /** Called after each complete() with whether the server accepted it. */
  onCompleted?: (job: LaneJob, accepted: boolean) => void;
}

/** Counters of a {@link FaultConsumer}. */
export interface FaultConsumerStats {
  claimed: number;
  completed: number;
  refused: number;
  failed: number;
  reaped: number;
  errors: number;
  lastError?: string;
}

/**
 * A small claim loop on LanesService for the fault tests: claim a batch, run its handlers together,
 * complete each, block on the wake list when idle, reap expired leases on a cadence, and keep going
 * through any Redis error (counted, then retried after a short back-off).
 */
export class FaultConsumer {
  readonly stats: FaultConsumerStats = { claimed: 0, completed: 0, refused: 0, failed: 0, reaped: 0, errors: 0 };
  private stopping = false;
  private loop?: Promise<void>;
  private readonly wakeKey: string;

  constructor(private readonly o: FaultConsumerOptions) {
    this.wakeKey = o.lanes.keysOf(o.queue).wake;
  }

  start(): this {
    if (this.loop) throw new Error('FaultConsumer started twice');
    this.loop = this.run();
    return this;
  }

  /** Stops claiming and waits for the batch in hand. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    const { lanes, queue } = this.o;
    const leaseMs = this.o.leaseMs ?? 2_000;
    const batch = this.o.batch ?? 8;
    const reapEvery = this.o.reapEveryMs ?? 250;
    let lastReap = 0;
    while (!this.stopping) {
      try {
        if (Date.now() - lastReap >= reapEvery) {
          lastReap = Date.now();
          this.stats.reaped += await lanes.reap(queue);
        }
        const jobs = this.o.weighted
          ? await lanes.wclaim(queue, { leaseMs, max: batch })
          : (await lanes.claimMany(queue, batch, { leaseMs })).jobs;
        if (jobs.length === 0) {
          await this.o.blocking.brpop(this.wakeKey, this.o.blockSeconds ?? 0.2);
          continue;
        }
        this.stats.claimed += jobs.length;
        await Promise.all(jobs.map((job) => this.work(job)));
      } catch (err) {
        this.stats.errors += 1;
        this.stats.lastError = (err as Error).message;
        await pause(50);
      }
    }
  }

  private async work(job: LaneJob): Promise<void> {
    const { lanes, queue } = this.o;
    try {
      await this.o.handle(job);
    } catch (err) {
      this.stats.failed += 1;
      await lanes.fail(queue, job.id, job.attempt, err);
      return;
    }
    const accepted = await lanes.complete(queue, job.id, job.attempt);
    if (accepted) this.stats.completed += 1;
    else this.stats.refused += 1;
    this.o.onCompleted?.(job, accepted);
  }
}

import { Injectable, Type } from '@nestjs/common';
import { LaneConsumer, LaneConsumerOptions, LaneJob, OnLaneEvent } from '../../../lib';

/** What the consumers of a partition test did, per app: handler starts, accepted completions, lost leases. */
export class Tally {
  /** Each handler start, in order: which app, which job and attempt, when (host clock). */
  readonly starts: { app: string; id: string; attempt: number; at: number }[] = [];
  /** Accepted completions per job id (the completed event: the server took it). */
  readonly completed = new Map<string, number>();
  /** Jobs whose result was refused (the lost event: the lease was gone), per app. */
  readonly lost = new Map<string, string[]>();

  start(app: string, job: LaneJob): void {
    this.starts.push({ app, id: job.id, attempt: job.attempt, at: Date.now() });
  }

  complete(job: LaneJob): void {
    this.completed.set(job.id, (this.completed.get(job.id) ?? 0) + 1);
  }

  lose(app: string, job: LaneJob): void {
    this.lost.set(app, [...(this.lost.get(app) ?? []), job.id]);
  }

  /** Jobs handed to a handler more than once. */
  startedTwice(): number {
    const n = new Map<string, number>();
    for (const s of this.starts) n.set(s.id, (n.get(s.id) ?? 0) + 1);
    return [...n.values()].filter((c) => c > 1).length;
  }

  /** Jobs whose completion the server took more than once (never, if fencing holds). */
  completedTwice(): number {
    return [...this.completed.values()].filter((c) => c > 1).length;
  }

  /** Ids `app` started and has no accepted completion for yet. */
  openOf(app: string): Set<string> {
    return new Set(this.starts.filter((s) => s.app === app && !this.completed.has(s.id)).map((s) => s.id));
  }
}

/**
 * A consumer class of its own for one app of a test (two apps in one process each need their own
 * class), recording into `tally`; `work` is the handler's body.
 */
export function tallyWorker(queue: string, app: string, tally: Tally, opts: LaneConsumerOptions,
  work: (job: LaneJob) => Promise<void> | void = () => undefined): Type<unknown> {
  @LaneConsumer(queue, opts)
  @Injectable()
  class TallyWorker {
    async handle(job: LaneJob): Promise<void> {
      tally.start(app, job);
      await work(job);
    }

    @OnLaneEvent('completed')
    done(job: LaneJob): void {
      tally.complete(job);
    }

    @OnLaneEvent('lost')
    lost(job: LaneJob): void {
      tally.lose(app, job);
    }
  }
  return TallyWorker;
}

import { Injectable } from '@nestjs/common';
import type { LaneJob } from '../interfaces';

/**
 * @internal What this process's claim loops tell an observer (the metrics module) about the jobs
 * they run. Called on the job's path, so an observer only records numbers and returns.
 */
export interface JobObserver {
  /**
   * A handler starts. `waitMs` is ready → claimed by the server clock: ready at the submit, or at
   * the due time, retry, reap or hand-back that made the job claimable again; undefined for a job
   * whose ready time is not known (a retry of a row written before ready times were kept).
   */
  started?(job: LaneJob, waitMs: number | undefined): void;
  /** A handler returned (`completed`) or threw (`failed`) after `ms`. */
  handled?(job: LaneJob, outcome: 'completed' | 'failed', ms: number): void;
}

/** @internal The observers of this application's claim loops; empty unless a module adds one. */
@Injectable()
export class JobObservers {
  private list: readonly JobObserver[] = [];

  /** Adds an observer; returns the function that removes it. */
  add(observer: JobObserver): () => void {
    this.list = [...this.list, observer];
    return () => {
      this.list = this.list.filter((o) => o !== observer);
    };
  }

  /** The observers now (a snapshot: adding or removing one does not change it). */
  get all(): readonly JobObserver[] {
    return this.list;
  }
}

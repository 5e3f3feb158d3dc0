import type { LaneJob } from '../interfaces';

/**
 * A base class for consumers: `@LaneConsumer('cm') class ScoreWorker extends LaneWorker<Guess>`
 * types its `handle(job)` by the queue's payload. Optional: `@LaneConsumer` works on any class with
 * a `handle` method.
 */
export abstract class LaneWorker<T = unknown> {
  /** Runs one job: what it returns completes the job (its result), what it throws fails it. */
  abstract handle(job: LaneJob<T>): Promise<unknown>;
}

import type { QueueEventName } from '../decorators/queue-events.decorator';
import type { JobProgress } from './job-info.interface';

/**
 * What an `@OnQueueEvent` method receives: ids and small fields, never the payload (read the job
 * with `job()` when you need more).
 */
export interface QueueEvent {
  event: QueueEventName;
  queue: string;
  jobId: string;
  group: string;
  /** The tenant of the job's lane, when it has one. */
  tenant?: string;
  /** completed, failed: the attempt (the fencing token) that ended. */
  attempt?: number;
  /** failed, dead: the reason, cut to 200 characters. */
  error?: string;
  /** progress: the value reported, when its JSON is at most 1 KiB (else read it with job()). */
  progress?: JobProgress;
  /** cancelled: the state the job was taken out of (pending, scheduled or dead). */
  state?: 'pending' | 'scheduled' | 'dead';
}

/** Options of `@LaneConsumer(queue, options)`. */
export interface LaneConsumerOptions {
  /** Handlers that may run at once in this consumer's claim loop (integer >= 1). @default 1 */
  concurrency?: number;
  /** Lease of each claim, in ms; renewed while the handler runs. @default the module's leaseMs */
  leaseMs?: number;
  /** Attempts before a job of this consumer is dead-lettered. @default the module's maxAttempts */
  maxAttempts?: number;
  /** How long this consumer's completed jobs stay readable, in ms. @default the module's keepCompletedMs */
  keepCompletedMs?: number;
  /** The retry delay of this consumer's failures. @default its queue's registered backoff, else the module's */
  backoff?: import('./echomq-module-options.interface').EchoMqBackoff;
}

/** @internal What `@LaneConsumer` stores on a class. */
export interface LaneConsumerMetadata extends LaneConsumerOptions {
  queue: string;
}

/** @internal One discovered consumer, ready for a claim loop. */
export interface LaneConsumerDescriptor {
  /** `ClassName.handle`, for logs. */
  name: string;
  queue: string;
  concurrency: number;
  leaseMs?: number;
  maxAttempts?: number;
  keepCompletedMs?: number;
  /** The queue's registered backoff (`registerQueue` defaults); absent: the module's. */
  backoff?: import('./echomq-module-options.interface').EchoMqBackoff;
  weighted: boolean;
  /** The bound handle(job) method (wrapped by the consumer's interceptors when it runs in an app). */
  handler: (job: import('./lane-job.interface').LaneJob) => unknown;
  /** The consumer's `@OnLaneEvent` methods, bound; absent when it has none. */
  events?: import('../events/lane-event-listeners').LaneEventListeners;
}

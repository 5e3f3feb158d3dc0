import { SetMetadata } from '@nestjs/common';
import { LANE_CONSUMER_METADATA } from '../echomq.constants';
import type { LaneConsumerMetadata, LaneConsumerOptions } from '../interfaces';

/**
 * Marks a provider class as a consumer of `queue`: its `handle(job)` method runs for every job the
 * class's claim loop takes; returning completes the job, throwing fails it (retry, then dead).
 * The class must also be listed as a provider of a module.
 * @param queue the queue to consume
 * @param options concurrency, lease and attempts of this consumer
 */
export function LaneConsumer(queue: string, options: LaneConsumerOptions = {}): ClassDecorator {
  const metadata: LaneConsumerMetadata = { ...options, queue };
  return SetMetadata(LANE_CONSUMER_METADATA, metadata);
}

/**
 * The queue a class consumes when it is marked `@LaneConsumer`, else `undefined`. For companion
 * modules (the dashboard, metrics) whose queue list defaults to the application's consumers.
 * @param target a provider class
 */
export function laneConsumerQueueOf(target: Function): string | undefined {
  const metadata = Reflect.getMetadata(LANE_CONSUMER_METADATA, target) as LaneConsumerMetadata | undefined;
  return metadata?.queue;
}

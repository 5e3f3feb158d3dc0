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

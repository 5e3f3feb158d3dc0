import { Injectable, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { LaneEventMetadata } from '../decorators/on-lane-event.decorator';
import type { QueueEventMetadata } from '../decorators/queue-events.decorator';
import {
  LANE_CONSUMER_METADATA, LANE_EVENT_METADATA, ON_QUEUE_EVENT_METADATA, QUEUE_EVENTS_METADATA, WEIGHTED_METADATA,
} from '../echomq.constants';
import type { LaneConsumerMetadata } from '../interfaces';

/** @internal Every read of EchoMQ's decorator metadata. */
@Injectable()
export class EchoMqMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The `@LaneConsumer` metadata of a class, if it has any. */
  getLaneConsumer(target: Type<unknown> | Function): LaneConsumerMetadata | undefined {
    return this.reflector.get<LaneConsumerMetadata | undefined>(LANE_CONSUMER_METADATA, target);
  }

  /** Whether a class is marked `@Weighted()`. */
  isWeighted(target: Type<unknown> | Function): boolean {
    return this.reflector.get<boolean | undefined>(WEIGHTED_METADATA, target) === true;
  }

  /** The `@OnLaneEvent` uses of a class (its own and its parents'), in declaration order. */
  getLaneEvents(target: Type<unknown> | Function): LaneEventMetadata[] {
    return this.reflector.get<LaneEventMetadata[] | undefined>(LANE_EVENT_METADATA, target) ?? [];
  }

  /** The queue of a `@QueueEventsListener` class, if it is one. */
  getQueueEventsListener(target: Type<unknown> | Function): string | undefined {
    return this.reflector.get<string | undefined>(QUEUE_EVENTS_METADATA, target);
  }

  /** The `@OnQueueEvent` uses of a class (its own and its parents'), in declaration order. */
  getQueueEvents(target: Type<unknown> | Function): QueueEventMetadata[] {
    return this.reflector.get<QueueEventMetadata[] | undefined>(ON_QUEUE_EVENT_METADATA, target) ?? [];
  }
}

import { ON_QUEUE_EVENT_METADATA, QUEUE_EVENTS_METADATA } from '../echomq.constants';

/** The job events a `@QueueEventsListener` class can hear, from every process. */
export type QueueEventName = 'submitted' | 'completed' | 'failed' | 'dead' | 'progress' | 'cancelled';

/** @internal One `@OnQueueEvent` use, as stored on the class. */
export interface QueueEventMetadata {
  event: string;
  method: string | symbol;
}

/**
 * Marks a provider class whose `@OnQueueEvent` methods hear the job events of `queue`, whichever
 * process caused them (at most once each, as Redis pub/sub delivers). The module subscribes once per
 * process and announces the listener on the server, so a queue nobody listens to publishes nothing.
 * @param queue the queue to listen to
 */
export function QueueEventsListener(queue: string): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(QUEUE_EVENTS_METADATA, queue, target);
  };
}

/**
 * Runs the decorated method with a {@link QueueEvent} on each `event` of the class's queue. What it
 * throws is logged; a slow one delays no job. Requires `@QueueEventsListener` on the class; a wrong
 * event name fails the boot.
 * @param event the event to hear
 */
export function OnQueueEvent(event: QueueEventName): (target: object, method: string | symbol, descriptor?: PropertyDescriptor) => void {
  return (target, method) => {
    const ctor = (target as { constructor: Function }).constructor;
    const inherited: QueueEventMetadata[] = Reflect.getMetadata(ON_QUEUE_EVENT_METADATA, ctor) ?? [];
    Reflect.defineMetadata(ON_QUEUE_EVENT_METADATA, [...inherited, { event, method }], ctor);
  };
}

import { LANE_EVENT_METADATA } from '../echomq.constants';

/** The events a consumer class can listen to, about its own jobs in this process. */
export type LaneEventName = 'active' | 'completed' | 'failed' | 'lost';

/** @internal One `@OnLaneEvent` use, as stored on the class. */
export interface LaneEventMetadata {
  event: string;
  method: string | symbol;
}

/**
 * Runs the decorated method of a `@LaneConsumer` class on an event of that consumer's own jobs:
 * `active` (job), `completed` (job, result), `failed` (job, error, 'retry' | 'dead'), `lost` (job:
 * its lease was lost, so its result was refused). The method runs beside the job, not in its way:
 * what it throws is logged and changes nothing, and a slow one holds no slot.
 * Requires `@LaneConsumer` on the class; a wrong event name fails the boot.
 * @param event the event to listen to
 */
export function OnLaneEvent(event: LaneEventName): (target: object, method: string | symbol, descriptor?: PropertyDescriptor) => void {
  return (target, method) => {
    // NOTE: kept as a list on the class, not on the method, so a use on something that is not a
    // method is still seen and refused at boot (a property decorator gets no descriptor).
    const ctor = (target as { constructor: Function }).constructor;
    const inherited: LaneEventMetadata[] = Reflect.getMetadata(LANE_EVENT_METADATA, ctor) ?? [];
    Reflect.defineMetadata(LANE_EVENT_METADATA, [...inherited, { event, method }], ctor);
  };
}

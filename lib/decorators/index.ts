export * from './lane-consumer.decorator';
export * from './weighted.decorator';
export * from './on-lane-event.decorator';
export * from './queue-events.decorator';

export * from './lane-consumer.decorator';
export * from './weighted.decorator';

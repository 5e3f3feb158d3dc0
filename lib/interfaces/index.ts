export * from './lane-job.interface';
export * from './lanes-options.interface';
export * from './echomq-module-options.interface';
export * from './lane-consumer-options.interface';
export * from './job-info.interface';
export * from './queue-event.interface';
export * from './tenant-info.interface';
export * from './fair-shares.interface';

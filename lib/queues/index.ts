export { InjectQueue, getQueueToken } from './inject-queue.decorator';
export { LaneWorker } from './lane-worker';
export { LANE_QUEUE_METHODS, LaneQueue } from './lane-queue';
export type { LaneQueueMethod } from './lane-queue';
export type { LaneQueueDefaults, RegisterQueueOptions, RegisterQueueAsyncOptions } from './queue-defaults';

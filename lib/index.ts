export { EchoMqModule } from './echomq.module';
export { LanesService } from './lanes.service';
export { LaneConsumer, Weighted, OnLaneEvent, laneConsumerQueueOf, QueueEventsListener, OnQueueEvent } from './decorators';
export type { LaneEventName, QueueEventName } from './decorators';
export { EchoMqError, UnrecoverableError } from './errors';
export { EchoMqErrorFilter, httpStatusOf } from './http/echomq-error.filter';
export type { EchoMqErrorCode, EchoMqErrorContext } from './errors';
export { mintJobId, isJobId } from './ids/job-id';
export { InjectQueue, getQueueToken, LaneWorker, LANE_QUEUE_METHODS, LaneQueue } from './queues';
export type { LaneQueueMethod, LaneQueueDefaults, RegisterQueueOptions, RegisterQueueAsyncOptions } from './queues';
export type {
  LaneJob, LaneInfo, LaneRate, EchoMqModuleOptions, EchoMqBackoff, EchoMqClusterConnection, EchoMqExistingClient, EchoMqDurability, SubmitOptions, SubmitItem,
  ClaimOptions, CompleteOptions, WeightedClaimOptions, WeightedClaimManyOptions, FailOptions, FailOutcome, ReapOptions, LaneConsumerOptions, PauseOptions, HeldLease,
  JobInfo, LanePosition, QueueStats, LanePage, ScanLanesOptions, WaitForOptions, JobProgress, DrainOptions, CleanOptions, ObliterateOptions, QueueEvent, TenantInfo, TenantPending,
} from './interfaces';

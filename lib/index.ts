export { EchoMqModule } from './echomq.module';
export { LanesService } from './lanes.service';
export { LaneConsumer, Weighted, OnLaneEvent, laneConsumerQueueOf, QueueEventsListener, OnQueueEvent } from './decorators';
export type { LaneEventName, QueueEventName } from './decorators';
export { EchoMqError, UnrecoverableError } from './errors';
export type { EchoMqErrorCode, EchoMqErrorContext } from './errors';
export { mintJobId, isJobId } from './ids/job-id';
export type {
  LaneJob, LaneInfo, LaneRate, EchoMqModuleOptions, EchoMqBackoff, EchoMqClusterConnection, EchoMqDurability, SubmitOptions, SubmitItem,
  ClaimOptions, WeightedClaimOptions, WeightedClaimManyOptions, FailOptions, FailOutcome, LaneConsumerOptions, PauseOptions, HeldLease,
  JobInfo, LanePosition, QueueStats, LanePage, ScanLanesOptions, WaitForOptions, JobProgress, DrainOptions, CleanOptions, ObliterateOptions, QueueEvent,
} from './interfaces';

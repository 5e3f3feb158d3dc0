export { EchoMqModule } from './echomq.module';
export { LanesService } from './lanes.service';
export { LaneConsumer, Weighted, OnLaneEvent, laneConsumerQueueOf } from './decorators';
export type { LaneEventName } from './decorators';
export { EchoMqError } from './errors';
export type { EchoMqErrorCode, EchoMqErrorContext } from './errors';
export { mintJobId, isJobId } from './ids/job-id';
export type {
  LaneJob, LaneInfo, LaneRate, EchoMqModuleOptions, EchoMqBackoff, EchoMqClusterConnection, EchoMqDurability, SubmitOptions, SubmitItem,
  ClaimOptions, WeightedClaimOptions, WeightedClaimManyOptions, FailOptions, FailOutcome, LaneConsumerOptions, PauseOptions, HeldLease,
  JobInfo, LanePosition, QueueStats, LanePage, ScanLanesOptions, WaitForOptions, TenantInfo, TenantPending,
} from './interfaces';

export { LanesService } from './lanes.service';
export { EchoMqError } from './errors';
export type { EchoMqErrorContext } from './errors';
export { mintJobId, isJobId } from './ids/job-id';
export type {
  LaneJob, LaneInfo, EchoMqModuleOptions, EchoMqBackoff, EchoMqClusterConnection, SubmitOptions, SubmitItem,
  ClaimOptions, WeightedClaimOptions, FailOptions, FailOutcome,
} from './interfaces';

/** @internal Injection token of the resolved module options. */
export const ECHOMQ_MODULE_OPTIONS = 'ECHOMQ:MODULE_OPTIONS';
/** @internal Injection token of the module's command connection. */
export const ECHOMQ_REDIS_CLIENT = 'ECHOMQ:REDIS_CLIENT';
/** @internal Metadata key written by `@LaneConsumer`. */
export const LANE_CONSUMER_METADATA = 'echomq:lane_consumer';
/** @internal Metadata key written by `@Weighted`. */
export const WEIGHTED_METADATA = 'echomq:weighted';

/** @internal Default key prefix. */
export const DEFAULT_PREFIX = 'emq';
/**
 * @internal Jobs per submitMany script call. A chunk of 500 onto a 100,000-lane queue took 6.4 ms of
 * server time (median; p99 9.6 ms) on the 2-core CI machine; 200 keep a call near 2.5 ms.
 */
export const SUBMIT_CHUNK = 200;
/**
 * @internal Lanes of a submitMany's later chunks whose tenants one check-only script call reads
 * (see LaneAdmission.submitIn): a call naming tenants for 4,500 lanes past its first chunk put them all
 * in one script of 23 ms, and one of 50,000 overflowed the call stack building its arguments.
 */
export const LATER_PER_CALL = 500;
/** @internal Acks per completeMany or extendMany script call: 500 took 5 ms of server time (median; p99 11 ms). */
export const ACK_CHUNK = 200;
/** @internal Jobs one claim script may serve at most: bounded work per call; callers call again. */
export const CLAIM_BATCH_MAX = 1_000;
/**
 * @internal Jobs one claimMany script call asks for: a larger claimMany makes several calls. One
 * claim script of 1,000 jobs took 10.8 ms of server time; one of 250 took 5.1 ms (median; p99 11 ms)
 * once a claim counted shares, on the 2-core CI machine; 100 keep a call near 2 ms.
 */
export const CLAIM_CHUNK = 100;
/** @internal Due scheduled jobs a claim promotes first, at most. */
export const PROMOTE_PER_CLAIM = 100;
/**
 * @internal Expired leases (or due jobs) one reap (or promote) script call handles, at most; the
 * caller calls again. One reap of 500 took 8.2 ms of server time, of 200 4.0 ms; 100 keeps a call near 2 ms.
 */
export const REAP_PER_CALL = 100;
/** @internal Byte limit of queue and group names. */
export const NAME_MAX_BYTES = 200;
/** @internal Byte limit of a dedup key. */
export const DEDUP_MAX_BYTES = 1024;
/** @internal Characters of a failure reason that are kept. */
export const ERROR_MAX_CHARS = 4096;
/** @internal Metadata key written by `@QueueEventsListener` (the queue). */
export const QUEUE_EVENTS_METADATA = 'echomq:queue_events';
/** @internal Metadata key written by `@OnQueueEvent` (a list on the class). */
export const ON_QUEUE_EVENT_METADATA = 'echomq:on_queue_event';
/** @internal Metadata key written by `@OnLaneEvent` (a list on the class). */
export const LANE_EVENT_METADATA = 'echomq:lane_event';
/** @internal `ExecutionContext.getType()` of a job run through Nest's interceptors. */
export const ECHOMQ_CONTEXT_TYPE = 'echomq';
/** @internal Longest a completed row may be kept: 30 days. */
export const MAX_KEEP_COMPLETED_MS = 30 * 24 * 3600 * 1000;
/** @internal Longest callTimeoutMs: a 32-bit timer's range. */
export const MAX_CALL_TIMEOUT_MS = 2 ** 31 - 1;
/** @internal Longest waitFor may wait: a day. */
export const MAX_WAIT_MS = 24 * 3600 * 1000;
/** @internal Rings up to this many lanes get an exact `ahead` from position(). */
export const POSITION_EXACT_RING = 1_000;
/** @internal Lanes per scanLanes/topLanes page, at most. */
export const LANE_PAGE_MAX = 1_000;
/**
 * @internal Lanes one bandDepths call counts for topLanes (see lanes/deepest-lanes.ts): about 0.5 ms
 * of server time alone (a page of 1,000 took 2.6 ms alone and up to 16 ms beside the bench's load).
 */
export const BAND_PAGE = 200;
/**
 * @internal bandDepths calls one topLanes makes per shard at most: 10,000 lanes of one band counted
 * (about 30 ms of server time in all); past that the last places are ranked among the lanes counted.
 */
export const BAND_PAGES_MAX = 50;
/** The largest `cost` a submit may declare (see LanesService.fairness). */
export const MAX_COST = 1_000_000;
/** @internal Byte limit of a pause reason. */
export const PAUSE_REASON_MAX_BYTES = 200;
/** @internal Lane rows one script call reads, at most (about 0.5 ms of server time with head ages; 100 took 1 ms). */
export const LANE_ROWS_PER_SCRIPT = 50;
/** The most shards a queue may be spread over (see LanesService.shards). */
export const MAX_SHARDS = 64;

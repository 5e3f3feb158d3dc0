import type { LoggerService } from '@nestjs/common';
import type { ClusterNode, ClusterOptions, RedisOptions } from 'ioredis';

/** A Redis Cluster to connect to. */
export interface EchoMqClusterConnection {
  /** Seed nodes of the cluster. */
  cluster: ClusterNode[];
  /** ioredis cluster options. */
  options?: ClusterOptions;
}

/**
 * A client the application made itself: an ioredis `Redis` or `Cluster` (ioredis 5 or 6), or one of
 * iovalkey. The module opens its own connections with `duplicate()` and never closes this one.
 */
export interface EchoMqExistingClient {
  /** Whether it is a Cluster client. */
  readonly isCluster: boolean;
  /** Its options (duplicates copy them). */
  readonly options: object;
  duplicate(...args: any[]): unknown;
  sendCommand(...args: any[]): unknown;
}

/** Retry delay of failed jobs: `delayMs * factor^(attempt-1)`, capped at `maxDelayMs`. */
export interface EchoMqBackoff {
  /** Delay before the first retry, in ms (0 retries at once). */
  delayMs: number;
  /** Growth per further attempt. @default 2 */
  factor?: number;
  /** Ceiling of the delay, in ms. @default 3_600_000 */
  maxDelayMs?: number;
}

/** Replicated writes: what every acknowledged write waits for before it resolves. */
export interface EchoMqDurability {
  /** Replicas that must hold the write (`WAIT`), an integer >= 1. */
  replicas: number;
  /** How long to wait, in ms; short of it the call rejects with code NOT_REPLICATED. @default 1_000 */
  timeoutMs?: number;
  /** Also wait until the server's own append-only file is fsynced (`WAITAOF`, Redis 7.2+, Valkey 8+). @default false */
  fsync?: boolean;
}

/** Options of `EchoMqModule.forRoot()` / `forRootAsync()`. */
export interface EchoMqModuleOptions {
  /**
   * A redis:// URL, ioredis options, a Redis Cluster, or an existing ioredis/iovalkey client (duplicated for
   * the module's own connections, never closed by it). @default 'redis://127.0.0.1:6379'
   */
  connection?: string | RedisOptions | EchoMqClusterConnection | EchoMqExistingClient | undefined;
  /** Key prefix: keys are `${prefix}:{queue}:…`. @default 'emq' */
  prefix?: string;
  /** Default lease of a claim, in ms. @default 30_000 */
  leaseMs?: number;
  /** Failed or expired attempts after which a job is dead. @default 3 */
  maxAttempts?: number;
  /** Retry delay of failed jobs. @default { delayMs: 1_000, factor: 2, maxDelayMs: 3_600_000 } */
  backoff?: EchoMqBackoff;
  /** How long shutdown waits for in-flight handlers, in ms. @default 10_000 */
  shutdownTimeoutMs?: number;
  /** Largest accepted payload (its JSON, in bytes). @default 1_048_576 */
  maxPayloadBytes?: number;
  /** Longest an idle consumer blocks before it reaps expired leases, in ms. @default 5_000 */
  idleBlockMs?: number;
  /** A logger to use instead of Nest's `Logger`. */
  logger?: LoggerService;
  /**
   * Bounds every call to the server on the command connection (LanesService's calls, the claim
   * loops' claims and acks), in ms: a call that gets no answer in this time rejects with
   * `EchoMqError` code `UNAVAILABLE`. The call stays queued on the connection, so its write may still
   * stand (retry a submit with the same jobId). Not bounded: the consumers' blocking waits and
   * waitFor's subscription (waits by design), and a `durability` WAIT gets its own timeoutMs on top.
   * @default none (calls wait through an outage until the server answers)
   */
  callTimeoutMs?: number;
  /**
   * How long a completed job's row is kept (state `completed`, its result and finishedAt), in ms;
   * while kept, a submit with the same jobId or dedupKey returns its id. 0 deletes it at once.
   * @default 0
   */
  keepCompletedMs?: number;
  /**
   * Replicated writes: submit, submitMany, complete, fail and retryDead resolve only once this many
   * replicas hold them (not on a Redis Cluster connection). @default none (asynchronous replication)
   */
  durability?: EchoMqDurability;
  /**
   * `'echomq'`: the queues may also be written by the EchoMQ reference at the same time (its scripts
   * keep no ring set, and keep group-less jobs in the flat `pending` set). Every process that writes
   * such a queue must use it. Submits, claims and completes cost what they cost without it; the rarer
   * joins of a lane to the ring (retries, reaps, resume, limit, …) read the ring, O(ring length).
   * @default undefined (off)
   */
  compat?: 'echomq';
  /**
   * Lets `shards(queue, n)` spread a queue over n > 1 shards on a connection that is not a Redis
   * Cluster: every shard then lives on the one server, on one core, so nothing is gained but the
   * code paths; for tests and development. @default false
   */
  shardsOnOneServer?: boolean;
}

/** @internal The options with every default filled in. */
export interface ResolvedEchoMqOptions {
  connection: string | RedisOptions | EchoMqClusterConnection | EchoMqExistingClient;
  prefix: string;
  leaseMs: number;
  maxAttempts: number;
  backoff: Required<EchoMqBackoff>;
  shutdownTimeoutMs: number;
  maxPayloadBytes: number;
  idleBlockMs: number;
  keepCompletedMs: number;
  logger?: LoggerService;
  /** null: calls are not bounded. */
  callTimeoutMs: number | null;
  durability: Required<EchoMqDurability> | null;
  compat?: 'echomq';
  shardsOnOneServer: boolean;
}

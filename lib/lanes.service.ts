import { BeforeApplicationShutdown, Inject, Injectable, LoggerService, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { ECHOMQ_MODULE_OPTIONS, ECHOMQ_REDIS_CLIENT } from './echomq.constants';
import { echoMqLogger } from './echomq.logger';
import { JobIdNodeLease } from './ids/node-lease';
import type {
  ClaimOptions, CleanOptions, CompleteOptions, DrainOptions, FailOptions, JobProgress, ReapOptions, ObliterateOptions, FailOutcome, HeldLease, JobInfo, FairShares, LaneHeadWait, LaneInfo, LaneJob, LanePage, LanePosition, LaneRate,
  FairnessOptions, PauseOptions, QueueStats, ResolvedEchoMqOptions, ScanLanesOptions, SharesOptions, SubmitItem, SubmitOptions, TenantInfo, TenantPending, WaitForOptions,
  WeightedClaimManyOptions, WeightedClaimOptions,
} from './interfaces';
import { LaneAcks } from './lanes/acks';
import { LaneAdmission } from './lanes/admission';
import { LaneClaims } from './lanes/claims';
import { LaneContext } from './lanes/lane-context';
import { LaneInspection } from './lanes/inspection';
import { LaneJobs } from './lanes/jobs';
import { LaneWaiting } from './lanes/waiting';
import { EchoMqConnections } from './redis/echomq-connections';
import { closeRedisClient } from './redis/redis-connection';
import { LaneRecovery } from './lanes/recovery';
import { LaneRemoval } from './lanes/removal';
import { adoptLanes, bootFairness, prepareServer } from './lanes/server-setup';
import { LaneSteering } from './lanes/steering';
import { LaneTenants } from './lanes/tenants';
import { LaneFairness } from './lanes/fairness';
import { LaneSharding } from './lanes/sharding';
import { nodeLeaseKey } from './redis/lane-keys';
import { EchoMqQueueRegistry } from './queues/queue-defaults';
import { duplicateClient } from './redis/redis-connection';
import type { LaneKeys } from './redis/lane-keys';
import type { RedisClient } from './scripts/lane-scripts';

/**
 * The queue's operations: admit work into lanes, claim it in ring order, acknowledge it, and steer
 * and inspect the lanes. Every argument is checked before anything is written.
 *
 * NOTE: this class is the one injectable users see, so it only names the operations; the work of
 * each role lives in its own file under `lanes/` (admission, claims, acks, recovery, steering,
 * inspection), which is where a new capability goes.
 */
@Injectable()
export class LanesService implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly ctx: LaneContext;
  private readonly logger: LoggerService;
  private readonly admission: LaneAdmission;
  private readonly claims: LaneClaims;
  private readonly acks: LaneAcks;
  private readonly recovery: LaneRecovery;
  private readonly steering: LaneSteering;
  private readonly tenants: LaneTenants;
  private readonly fairness_: LaneFairness;
  private readonly sharding: LaneSharding;
  private readonly inspection: LaneInspection;
  private readonly jobs: LaneJobs;
  private readonly removal: LaneRemoval;
  private readonly waiting: LaneWaiting;
  private readonly nodeLease: JobIdNodeLease;
  private readonly connections?: EchoMqConnections;

  constructor(
    @Inject(ECHOMQ_REDIS_CLIENT) client: RedisClient,
    @Inject(ECHOMQ_MODULE_OPTIONS) options: ResolvedEchoMqOptions,
    @Optional() connections?: EchoMqConnections,
    @Optional() registry?: EchoMqQueueRegistry,
  ) {
    this.ctx = new LaneContext(client, options, registry);
    this.connections = connections;
    this.logger = echoMqLogger(options);
    this.admission = new LaneAdmission(this.ctx);
    this.claims = new LaneClaims(this.ctx);
    this.acks = new LaneAcks(this.ctx);
    this.recovery = new LaneRecovery(this.ctx);
    this.steering = new LaneSteering(this.ctx);
    this.tenants = new LaneTenants(this.ctx);
    this.fairness_ = new LaneFairness(this.ctx);
    this.sharding = new LaneSharding(this.ctx);
    this.inspection = new LaneInspection(this.ctx);
    this.jobs = new LaneJobs(this.ctx);
    this.removal = new LaneRemoval(this.ctx);
    this.nodeLease = new JobIdNodeLease(this.ctx.scripts, nodeLeaseKey(options.prefix), this.logger);
    // NOTE: in the module the subscriber is the connection manager's, closed with the app; a
    // LanesService built by hand duplicates its client and closes the copy when nobody waits.
    this.waiting = new LaneWaiting(this.ctx, connections
      ? { open: () => connections.open('echomq:waits'), close: (c) => connections.close(c), closeWhenIdle: false }
      : { open: () => duplicateClient(client), close: (c) => closeRedisClient(c), closeWhenIdle: true }, this.logger);
  }

  /** @internal Takes a job-id node number no other live process holds, and checks the eviction policy. */
  async onModuleInit(): Promise<void> {
    await prepareServer(this.ctx, this.nodeLease, this.logger, this.connections?.startDeadline);
  }

  /** @internal Indexes the lanes of queues written before 0.2 (see lanes/server-setup.ts). */
  adoptLanes(queues: string[]): Promise<void> {
    return adoptLanes(this.ctx, queues, this.logger);
  }

  /**
   * @internal Sets the registered fairness of `queues` at boot, holding the boot no longer than a
   * server that does not answer allows (see lanes/server-setup.ts).
   */
  bootFairness(queues: [string, FairnessOptions][]): Promise<void> {
    return bootFairness(this.ctx, queues, (queue, fairness) => this.fairness(queue, fairness), this.logger);
  }

  /**
   * @internal Gives the job-id node number back (before the connections close): once, however often
   * asked (the claim loops' shutdown starts it beside their stop, see ClaimLoopOrchestrator).
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.nodeLease.release();
  }

  /**
   * @internal Ends the waits still open (waitFor) as the connections close: each rejects at once,
   * so that no wait's timer keeps a stopped process alive.
   */
  onApplicationShutdown(): void {
    this.waiting.close();
  }

  /** @internal Keys of a queue, after checking its name. */
  keysOf(queue: unknown): LaneKeys {
    return this.ctx.keysOf(queue);
  }

  /** @internal The resolved module options. */
  get settings(): ResolvedEchoMqOptions {
    return this.ctx.options;
  }

  // --- admission -------------------------------------------------------------------------------

  /**
   * Admits one job into the lane of `group`; returns its id. A `jobId` or `dedupKey` that is
   * already live returns the existing job's id instead of admitting it twice.
   */
  submit<T = unknown>(queue: string, group: string, payload: T, opts?: SubmitOptions): Promise<string> {
    return this.admission.submit(queue, group, payload, opts);
  }

  /** Admits many jobs, each into its own lane, one round trip per chunk; ids in input order. */
  submitMany<T = unknown>(queue: string, items: SubmitItem<T>[]): Promise<string[]> {
    return this.admission.submitMany(queue, items);
  }

  // --- sharding --------------------------------------------------------------------------------

  /**
   * Spreads the queue over `n` shards (1 to 64), each in a hash slot of its own, so that a Redis
   * Cluster serves it on up to `n` cores: a lane lives in one shard, chosen by a consistent hash of
   * its group, and shard 0 keeps the queue's own keys (`n` = 1 is an unsharded queue). Only while
   * the queue holds no pending, scheduled, active or dead job (code NOT_EMPTY); stored with the
   * queue, so every process learns it (within about a second). Needs a Cluster connection for
   * `n` > 1 unless the module sets `shardsOnOneServer` (code MISCONFIGURED).
   */
  shards(queue: string, n: number): Promise<void> {
    return this.sharding.shards(queue, n);
  }

  /** How many shards the queue has (1 unless `shards()` spread it), read from the server. */
  shardCount(queue: string): Promise<number> {
    return this.sharding.count(queue);
  }

  /** @internal The queue's shard count as this process last read it (read again about every second). */
  async shardsOf(queue: string): Promise<number> {
    return this.ctx.shards.count(this.ctx.keysOf(queue));
  }

  /** @internal A wake token came from shard `shard` of the queue: this process's claims visit it next. */
  shardWoke(queue: string, shard: number): void {
    const k = this.ctx.keysOf(queue);
    const n = this.ctx.shards.counts.of(k);
    if (typeof n === 'number' && shard < n) this.ctx.shards.visitsOf(k, n).woke(shard);
  }

  // --- claims ----------------------------------------------------------------------------------

  /**
   * Promotes due scheduled jobs, rotates the ring one step and serves the head of the rotated lane
   * under a lease. `null` when no lane is serviceable.
   */
  async claim<T = unknown>(queue: string, opts?: ClaimOptions): Promise<LaneJob<T> | null> {
    const { jobs } = await this.claims.claimMany(queue, 1, opts);
    return (jobs[0] as LaneJob<T>) ?? null;
  }

  /**
   * Serves up to `count` jobs (1 to 1,000), exactly what `count` claims in a row would serve, in one round trip.
   * `dueInMs` is how long until the earliest scheduled job falls due, by the server clock (-1 when none).
   */
  claimMany<T = unknown>(queue: string, count: number, opts?: ClaimOptions): Promise<{ jobs: LaneJob<T>[]; dueInMs: number }> {
    return this.claims.claimMany(queue, count, opts) as Promise<{ jobs: LaneJob<T>[]; dueInMs: number }>;
  }

  /**
   * The weighted claim: the same one-step rotation, then K = min(weight, depth, limit − active,
   * `opts.max`) heads of the rotated lane. `[]` when nothing is serviceable.
   */
  async wclaim<T = unknown>(queue: string, opts?: WeightedClaimOptions): Promise<LaneJob<T>[]> {
    return (await this.claims.wclaimTurn(queue, opts)).jobs as LaneJob<T>[];
  }

  /**
   * Many weighted turns in one round trip: exactly what `turns` wclaims in a row would serve (1 to
   * 1,000 turns), the jobs of each turn in its own array, in order. Stops early when no lane is
   * serviceable, after the turn that reaches `opts.untilJobs`, or at 1,000 jobs (the turn that
   * would pass 1,000 is cut to fit, as `opts.max` cuts a turn). `dueInMs` as for claimMany.
   */
  wclaimMany<T = unknown>(queue: string, turns: number, opts?: WeightedClaimManyOptions): Promise<{ turns: LaneJob<T>[][]; dueInMs: number }> {
    return this.claims.wclaimMany(queue, turns, opts) as Promise<{ turns: LaneJob<T>[][]; dueInMs: number }>;
  }

  // --- acks ------------------------------------------------------------------------------------

  /**
   * Acknowledges a job; only the holder of the current attempt (`token`) may. `result` (JSON, up to
   * maxPayloadBytes) is kept with the row when completed jobs are kept (`keepCompletedMs`, which
   * `opts.keepCompletedMs` overrides for this job).
   */
  complete(queue: string, jobId: string, token: number, result?: unknown, opts?: CompleteOptions): Promise<boolean> {
    return this.acks.complete(queue, jobId, token, result, opts);
  }

  /**
   * Acknowledges many jobs in one round trip per chunk, each exactly as `complete` would; one
   * boolean per ack, in order (false: the token was stale or the job unknown). `opts.keepCompletedMs`
   * overrides the module's for these jobs (a consumer's own setting).
   */
  completeMany(queue: string, acks: { jobId: string; token: number; result?: unknown }[], opts?: CompleteOptions): Promise<boolean[]> {
    return this.acks.completeMany(queue, acks, opts);
  }

  /**
   * Gives a held job back: retried after backoff into its lane, or dead once attempts are spent;
   * with `opts.dead` dead at once, whatever attempts it has left.
   */
  fail(queue: string, jobId: string, token: number, error: unknown, opts?: FailOptions): Promise<FailOutcome> {
    return this.acks.fail(queue, jobId, token, error, opts);
  }

  /**
   * Hands a held job back unprocessed: it returns to the head of its lane, its attempt is not
   * counted against its budget, and `token` becomes stale. False when the token is not current.
   */
  release(queue: string, jobId: string, token: number): Promise<boolean> {
    return this.acks.release(queue, jobId, token);
  }

  /**
   * Keeps the progress of a held job (a number or a JSON object, at most 64 KiB as JSON) on its row,
   * where job() shows it; false, changing nothing, when `token` is not the current attempt.
   */
  async progress(queue: string, jobId: string, token: number, value: JobProgress): Promise<boolean> {
    return (await this.acks.progress(queue, jobId, token, value)) !== null;
  }

  /** Renews the lease of a job still held under `token`; false when it is not. */
  async extend(queue: string, jobId: string, token: number, leaseMs: number): Promise<boolean> {
    return (await this.acks.extendUntil(queue, jobId, token, leaseMs)) > 0;
  }

  /**
   * Renews the leases of many held jobs in one round trip per chunk (a claim loop's renewal tick),
   * each exactly as `extend` would; one new deadline per job, in order, 0 where it is no longer held.
   */
  extendMany(queue: string, leases: HeldLease[], leaseMs: number): Promise<number[]> {
    return this.acks.extendMany(queue, leases, leaseMs);
  }

  /** @internal extend, returning the new deadline (0 when the lease is lost). */
  extendUntil(queue: string, jobId: string, token: number, leaseMs: number): Promise<number> {
    return this.acks.extendUntil(queue, jobId, token, leaseMs);
  }

  // --- recovery --------------------------------------------------------------------------------

  /** Returns every job whose lease expired to its lane (or the dead set); how many. */
  reap(queue: string, opts?: ReapOptions): Promise<number> {
    return this.recovery.reap(queue, opts);
  }

  /** Moves due scheduled jobs into their lanes now (claims do this too); how many. */
  promote(queue: string): Promise<number> {
    return this.recovery.promote(queue);
  }

  /** Puts a dead job back into its lane; false when the job is not dead. */
  retryDead(queue: string, jobId: string): Promise<boolean> {
    return this.recovery.retryDead(queue, jobId);
  }

  // --- removal ---------------------------------------------------------------------------------

  /**
   * Removes a pending, scheduled or dead job (its lane leaves the ring when it empties; the totals
   * count it as `cancelled`); false, changing nothing, for an active, completed or unknown one.
   */
  async cancel(queue: string, jobId: string): Promise<boolean> {
    return (await this.removal.cancel(queue, jobId)) !== null;
  }

  /**
   * Removes every pending and scheduled job of one lane (`opts.group`) or of all, a page of at most
   * 100 jobs per script call; returns how many (counted as `cancelled`). Active and dead jobs stay.
   */
  drain(queue: string, opts?: DrainOptions): Promise<number> {
    return this.removal.drain(queue, opts);
  }

  /**
   * Removes dead jobs (counted as `cancelled`) or kept completed rows that finished at least
   * `opts.olderThanMs` ago (server clock), at most `opts.limit`; returns how many.
   */
  clean(queue: string, kind: 'dead' | 'completed', opts?: CleanOptions): Promise<number> {
    return this.removal.clean(queue, kind, opts);
  }

  /**
   * Deletes every key of the queue, a page at a time; rejects with code NOT_EMPTY, deleting nothing,
   * while jobs are active, unless `opts.force`.
   */
  obliterate(queue: string, opts?: ObliterateOptions): Promise<void> {
    return this.removal.obliterate(queue, opts);
  }

  // --- steering --------------------------------------------------------------------------------

  /** Sets a lane's throughput share under wclaim: an integer >= 1. Never parks the lane. */
  weight(queue: string, group: string, weight: number): Promise<void> {
    return this.steering.weight(queue, group, weight);
  }

  /**
   * Sets the most jobs a lane may hold pending or scheduled (an integer from 1 to 10,000,000), or
   * removes it with `null`: a submit beyond it rejects with code LANE_FULL and writes nothing, and a
   * submitMany admits all its jobs or none. Retries and reaps of jobs already admitted are never refused.
   */
  maxDepth(queue: string, group: string, n: number | null): Promise<void> {
    return this.steering.maxDepth(queue, group, n);
  }

  /**
   * Chooses what a lane's share of the queue counts, for every process (stored with the queue):
   * `by: 'jobs'` (the default) gives every lane one job a turn; `'cost'` charges each job its
   * declared `cost` (submit option), `'time'` the server-clock time from its claim to its ack, so
   * lanes share the work, not the turns (start-time fair queueing, see the README's "How fairness
   * works"). Tenants are charged at their own level. Takes effect at the next claim; no job moves.
   * Not available with `compat: 'echomq'` except `'jobs'` (code MISCONFIGURED).
   */
  fairness(queue: string, opts: FairnessOptions): Promise<void> {
    return this.fairness_.set(queue, opts);
  }

  /**
   * Makes a lane keep submit order (`on` true) or serve as a plain lane again (false): at most one
   * of its jobs is active at a time, and a job that fails keeps the lane's head through its backoff
   * (the lane is off the ring meanwhile), so jobs complete in submit order; a job that dies lets the
   * next one go. The lane's own `limit` is kept and applies again once it is no longer ordered.
   */
  ordered(queue: string, group: string, on: boolean): Promise<void> {
    return this.steering.ordered(queue, group, on);
  }

  /** Sets a lane's concurrency ceiling (integer >= 1), or removes it with `null`. */
  limit(queue: string, group: string, limit: number | null): Promise<void> {
    return this.steering.limit(queue, group, limit);
  }

  /**
   * Sets the lane's rate ceiling: at most `max` jobs claimed in any window of `perMs` ms (server
   * clock), by claim, claimMany and wclaim alike; `null` removes it. A lane whose window is full
   * leaves the ring and rejoins at the tail when its oldest claim in the window ages out.
   */
  rate(queue: string, group: string, rate: LaneRate | null): Promise<void> {
    return this.steering.rate(queue, group, rate);
  }

  /**
   * Takes a lane out of service; its pending jobs stay. With `forMs` it resumes by itself after
   * that long (server clock); `reason` is reported by `lane()` while it is paused.
   */
  pause(queue: string, group: string, opts?: PauseOptions): Promise<void> {
    return this.steering.pause(queue, group, opts);
  }

  /** Puts a paused lane back in service (a timed pause's timer and the reason go with it). */
  resume(queue: string, group: string): Promise<void> {
    return this.steering.resume(queue, group);
  }

  /**
   * Stops all claiming of the queue until `resumeQueue`: no claim serves any lane meanwhile, and the
   * lanes keep their own pause state, backlog and place in the ring. Stored where the EchoMQ
   * reference keeps its queue-wide pause (field `paused` of `emq:{q}:meta`), so either one's pause
   * holds for both.
   */
  pauseQueue(queue: string): Promise<void> {
    return this.steering.pauseQueue(queue);
  }

  /** Restarts the claiming of a paused queue (whoever paused it) and wakes idle consumers, one per lane on the ring (up to 16). */
  resumeQueue(queue: string): Promise<void> {
    return this.steering.resumeQueue(queue);
  }

  // --- tenants ---------------------------------------------------------------------------------

  /**
   * Sets a tenant's share of the queue's ring, as `weight` does for a lane (an integer >= 1): a
   * wclaim that lands on the tenant takes that many turns of the tenant's own ring.
   */
  tenantWeight(queue: string, tenant: string, weight: number): Promise<void> {
    return this.tenants.weight(queue, tenant, weight);
  }

  /** Sets a ceiling on the tenant's active jobs summed over its lanes (integer >= 1), or removes it with `null`. */
  tenantLimit(queue: string, tenant: string, limit: number | null): Promise<void> {
    return this.tenants.limit(queue, tenant, limit);
  }

  /** Takes every lane of the tenant out of service (`opts` as for `pause`); their pending jobs stay. */
  pauseTenant(queue: string, tenant: string, opts?: PauseOptions): Promise<void> {
    return this.tenants.pause(queue, tenant, opts);
  }

  /** Puts a paused tenant back in service (a timed pause's timer and the reason go with it). */
  resumeTenant(queue: string, tenant: string): Promise<void> {
    return this.tenants.resume(queue, tenant);
  }

  /** One tenant's state; a tenant the queue does not know answers its defaults (no lanes, weight 1, no limit). */
  tenant(queue: string, tenant: string): Promise<TenantInfo> {
    return this.tenants.info(queue, tenant);
  }

  /** The `count` (1..1,000) tenants with the most pending jobs, most first (a bounded read: see lua/topTenants-1.lua). */
  topTenants(queue: string, count: number): Promise<TenantPending[]> {
    return this.tenants.top(queue, count);
  }

  /**
   * Sets a ceiling on the queue's active jobs over all its lanes and tenants (integer >= 1; BullMQ's
   * global concurrency), or removes it with `null`; reported by `stats().limit`.
   */
  queueLimit(queue: string, limit: number | null): Promise<void> {
    return this.tenants.queueLimit(queue, limit);
  }

  // --- inspection ------------------------------------------------------------------------------

  /** One lane's state. */
  lane(queue: string, group: string): Promise<LaneInfo> {
    return this.inspection.lane(queue, group);
  }

  /**
   * Every lane with pending or active jobs or a setting, by name. O(lanes) in one script: for small
   * queues only; page through a large one with `scanLanes`.
   */
  lanes(queue: string): Promise<LaneInfo[]> {
    return this.inspection.lanes(queue);
  }

  /**
   * The first `count` (1 to 1,000) lanes of the ring, in the order claims serve them: O(count). The ring as
   * stored: a lane whose timer has fallen due (a timed pause over, a rate window reopened) is on it from the
   * next claim, `stats()` or `position()`, which apply due timers first (`lane()` already counts it in).
   */
  ring(queue: string, count = 10): Promise<string[]> {
    return this.inspection.ring(queue, count);
  }

  /** Ids of the first `count` (1 to 1,000) pending jobs of a lane, in the order it serves them. */
  peek(queue: string, group: string, count = 1): Promise<string[]> {
    return this.inspection.peek(queue, group, count);
  }

  /**
   * A page of the queue's lanes (`opts.count` 1..1,000, default 100, about that many per page); pass
   * the returned cursor for the next page, `null` when done. A lane that exists for the whole scan is
   * returned at least once; each call costs O(count).
   */
  scanLanes(queue: string, opts?: ScanLanesOptions): Promise<LanePage> {
    return this.inspection.scanLanes(queue, opts);
  }

  /** The `count` (1..1,000) lanes with the most pending jobs, most first. */
  topLanes(queue: string, count: number): Promise<LaneInfo[]> {
    return this.inspection.topLanes(queue, count);
  }

  /**
   * The `count` (1..1,000) lanes whose head jobs have waited longest since they became ready (paused
   * lanes too), longest first: the lanes starving now. Exact; cheap while few heads are old.
   */
  oldestLanes(queue: string, count: number): Promise<LaneHeadWait[]> {
    return this.inspection.oldestLanes(queue, count);
  }

  /**
   * What the lanes were served over the last minute of the server clock: the `opts.count` (1..1,000,
   * default 10) lanes served most, each with its work, weight, the share its weight entitles it to
   * among the backlogged lanes and whether it is backlogged, and Jain's index of the shares.
   */
  shares(queue: string, opts?: SharesOptions): Promise<FairShares> {
    return this.inspection.shares(queue, opts);
  }

  /** One job as it is now; null for an id the queue does not hold (never submitted, or completed and not kept). */
  job<T = unknown>(queue: string, jobId: string): Promise<JobInfo<T> | null> {
    return this.jobs.job(queue, jobId) as Promise<JobInfo<T> | null>;
  }

  /**
   * Where a pending job stands: its rank, its lane's place in the ring, the jobs ahead and a wait estimate; null unless pending.
   * Lane timers that are due (a timed pause that has ended, a rate window that has reopened) are applied first, as the next claim would.
   */
  position(queue: string, jobId: string): Promise<LanePosition | null> {
    return this.jobs.position(queue, jobId);
  }

  /**
   * Resolves once the job is completed or dead, with its JobInfo; null when the queue does not hold
   * the id. Rejects with an EchoMqError of code TIMEOUT after `opts.timeoutMs`. Never polls.
   */
  waitFor<T = unknown>(queue: string, jobId: string, opts: WaitForOptions): Promise<JobInfo<T> | null> {
    return this.waiting.waitFor(queue, jobId, opts) as Promise<JobInfo<T> | null>;
  }

  /**
   * The dead-lettered jobs, oldest death first, each with its `lastError`: all of them (up to
   * 1,000,000), or the page `opts` names (`offset` from the oldest, `count` at most).
   */
  async dead<T = unknown>(queue: string, opts?: { offset?: number; count?: number }): Promise<LaneJob<T>[]> {
    return (await this.inspection.dead(queue, opts)) as LaneJob<T>[];
  }

  /**
   * The queue's totals since it began (kept in the server, the same from every process), its jobs in
   * each state now, its lanes, completions per second over the last minute, and `paused` while the
   * whole queue is paused. Constant cost. Lane timers that are due (a timed pause that has ended, a rate
   * window that has reopened) are applied first, as the next claim would, so `pausedLanes` and
   * `ringLength` agree with lane().
   */
  stats(queue: string): Promise<QueueStats> {
    return this.inspection.stats(queue);
  }
}

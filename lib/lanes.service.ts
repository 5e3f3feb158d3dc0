import { Inject, Injectable, LoggerService, OnModuleInit } from '@nestjs/common';
import { CLAIM_BATCH_MAX, ECHOMQ_MODULE_OPTIONS, ECHOMQ_REDIS_CLIENT, ERROR_MAX_CHARS, PROMOTE_PER_CLAIM, REAP_PER_CALL, SUBMIT_CHUNK } from './echomq.constants';
import { echoMqLogger } from './echomq.logger';
import { evictionPolicyWarning, idsExhausted, invalidArgument } from './echomq.messages';
import { EchoMqError } from './errors';
import { mintJobId, setJobIdNode } from './ids/job-id';
import type {
  ClaimOptions, FailOptions, FailOutcome, LaneInfo, LaneJob, ResolvedEchoMqOptions, SubmitItem, SubmitOptions,
  WeightedClaimOptions,
} from './interfaces';
import { LaneKeys, nodeCounterKey } from './redis/lane-keys';
import { AdmitArgs, LaneScripts, RedisClient } from './scripts/lane-scripts';
import {
  checkDedupKey, checkInt, checkJobId, checkName, checkOptInt, checkOptions, checkToken, encodePayload,
} from './validation/validate';

const MAX_LEASE_MS = 2 ** 31 - 1;
const MAX_DELAY_MS = 10 * 365 * 24 * 3600 * 1000;
const MAX_COUNT = 1_000_000;
const MINT_RETRIES = 5;

/**
 * The queue's operations: admit work into lanes, claim it in ring order, acknowledge it, and steer
 * the lanes (weights, ceilings, pause). Every argument is checked before anything is written.
 */
@Injectable()
export class LanesService implements OnModuleInit {
  private readonly scripts: LaneScripts;
  private readonly keys = new Map<string, LaneKeys>();
  private readonly logger: LoggerService;

  constructor(
    @Inject(ECHOMQ_REDIS_CLIENT) private readonly client: RedisClient,
    @Inject(ECHOMQ_MODULE_OPTIONS) private readonly options: ResolvedEchoMqOptions,
  ) {
    this.scripts = new LaneScripts(client);
    this.logger = echoMqLogger(options);
  }

  /** @internal Takes a distinct job-id node number from the server and checks its eviction policy. */
  async onModuleInit(): Promise<void> {
    try {
      // NOTE: bounded, so an application still boots while the server is unreachable (ioredis
      // queues commands until it reconnects); ids then keep the random node they started with.
      const n = await withTimeout(this.client.incr(nodeCounterKey(this.options.prefix)), 3_000);
      setJobIdNode(n - 1);
    } catch (err) {
      this.logger.warn(`Could not take a job-id node number from the server; keeping a random one (${(err as Error).message}).`);
    }
    try {
      const nodes = 'nodes' in this.client ? (this.client as { nodes(role: string): RedisClient[] }).nodes('master') : [this.client];
      const reply = (await withTimeout((nodes[0] ?? this.client).config('GET', 'maxmemory-policy'), 3_000)) as string[];
      const policy = reply?.[1];
      if (policy && policy !== 'noeviction') this.logger.warn(evictionPolicyWarning(policy));
    } catch {
      // NOTE: managed servers often refuse CONFIG; the policy is then the operator's to check.
      this.logger.log('Could not read maxmemory-policy (CONFIG is refused); make sure it is noeviction.');
    }
  }

  /** @internal Keys of a queue, after checking its name. */
  keysOf(queue: unknown): LaneKeys {
    const cached = this.keys.get(queue as string);
    if (cached) return cached;
    const k = new LaneKeys(this.options.prefix, checkName('queue', queue));
    if (this.keys.size > 10_000) this.keys.clear();
    this.keys.set(k.queue, k);
    return k;
  }

  /** @internal The resolved module options. */
  get settings(): ResolvedEchoMqOptions {
    return this.options;
  }

  private admitArgs(queue: string, group: unknown, payload: unknown, rawOpts: unknown, argPrefix = ''): AdmitArgs {
    const g = checkName(argPrefix + 'group', group, queue);
    const opts = checkOptions<SubmitOptions>(argPrefix + 'opts', rawOpts, queue);
    const own = opts.jobId !== undefined;
    const id = own ? checkJobId(argPrefix + 'opts.jobId', opts.jobId, queue) : mintJobId();
    const dedupKey = opts.dedupKey === undefined ? '' : checkDedupKey(opts.dedupKey, queue, argPrefix + 'opts.dedupKey');
    const delayMs = checkOptInt(argPrefix + 'opts.delayMs', opts.delayMs, 0, MAX_DELAY_MS, queue) ?? 0;
    const maxAttempts = checkOptInt(argPrefix + 'opts.maxAttempts', opts.maxAttempts, 1, 1_000_000, queue) ?? 0;
    const json = encodePayload(payload, this.options.maxPayloadBytes, queue, argPrefix + 'payload');
    return { id, group: g, payload: json, dedupKey, delayMs, maxAttempts, own };
  }

  /**
   * Admits one job into the lane of `group`; returns its id. A `jobId` or `dedupKey` that is
   * already live returns the existing job's id instead of admitting it twice.
   */
  async submit<T = unknown>(queue: string, group: string, payload: T, opts?: SubmitOptions): Promise<string> {
    const k = this.keysOf(queue);
    const job = this.admitArgs(k.queue, group, payload, opts);
    for (let i = 0; ; i++) {
      const r = await this.scripts.submit(k, job);
      if (r.status !== 'collide') return r.id;
      // NOTE: the id is another job's; returning it would drop this job while claiming success.
      if (i >= MINT_RETRIES) throw new EchoMqError(idsExhausted(k.queue, MINT_RETRIES + 1), { code: 'IDS_EXHAUSTED', queue: k.queue });
      job.id = mintJobId();
    }
  }

  /** Admits many jobs, each into its own lane, one round trip per chunk; ids in input order. */
  async submitMany<T = unknown>(queue: string, items: SubmitItem<T>[]): Promise<string[]> {
    const k = this.keysOf(queue);
    if (!Array.isArray(items)) {
      throw new EchoMqError(invalidArgument('items', 'must be an array of { group, payload, opts? }', items), { argument: 'items', queue: k.queue });
    }
    const jobs = items.map((item, i) => {
      if (typeof item !== 'object' || item === null) {
        throw new EchoMqError(invalidArgument(`items[${i}]`, 'must be { group, payload, opts? }', item), { argument: `items[${i}]`, queue: k.queue });
      }
      return this.admitArgs(k.queue, item.group, item.payload, item.opts, `items[${i}].`);
    });
    const ids = new Array<string>(jobs.length);
    for (let start = 0; start < jobs.length; start += SUBMIT_CHUNK) {
      let batch = jobs.slice(start, start + SUBMIT_CHUNK).map((job, j) => ({ job, at: start + j }));
      for (let attempt = 0; batch.length > 0; attempt++) {
        const results = await this.scripts.submitMany(k, batch.map((b) => b.job));
        const again: typeof batch = [];
        results.forEach((r, j) => {
          if (r.status === 'collide') {
            if (attempt >= MINT_RETRIES) throw new EchoMqError(idsExhausted(k.queue, MINT_RETRIES + 1), { code: 'IDS_EXHAUSTED', queue: k.queue });
            batch[j].job.id = mintJobId();
            again.push(batch[j]);
          } else {
            ids[batch[j].at] = r.id;
          }
        });
        batch = again;
      }
    }
    return ids;
  }

  private leaseOf(queue: string, opts: ClaimOptions): number {
    return checkOptInt('opts.leaseMs', opts.leaseMs, 1, MAX_LEASE_MS, queue) ?? this.options.leaseMs;
  }

  /**
   * Promotes due scheduled jobs, rotates the ring one step and serves the head of the rotated lane
   * under a lease. `null` when no lane is serviceable.
   */
  async claim<T = unknown>(queue: string, opts?: ClaimOptions): Promise<LaneJob<T> | null> {
    const k = this.keysOf(queue);
    const o = checkOptions<ClaimOptions>('opts', opts, k.queue);
    const { jobs } = await this.scripts.claim(k, this.leaseOf(k.queue, o), 1, PROMOTE_PER_CLAIM);
    return (jobs[0] as LaneJob<T>) ?? null;
  }

  /**
   * Serves up to `count` jobs (1 to 1,000), exactly what `count` claims in a row would serve, in one round trip.
   * `dueInMs` is how long until the earliest scheduled job falls due, by the server clock (-1 when none).
   */
  async claimMany<T = unknown>(queue: string, count: number, opts?: ClaimOptions): Promise<{ jobs: LaneJob<T>[]; dueInMs: number }> {
    const k = this.keysOf(queue);
    const n = checkInt('count', count, 1, CLAIM_BATCH_MAX, k.queue);
    const o = checkOptions<ClaimOptions>('opts', opts, k.queue);
    return (await this.scripts.claim(k, this.leaseOf(k.queue, o), n, PROMOTE_PER_CLAIM)) as { jobs: LaneJob<T>[]; dueInMs: number };
  }

  /**
   * The weighted claim: the same one-step rotation, then K = min(weight, depth, limit − active,
   * `opts.max`) heads of the rotated lane. `[]` when nothing is serviceable.
   */
  async wclaim<T = unknown>(queue: string, opts?: WeightedClaimOptions): Promise<LaneJob<T>[]> {
    return (await this.wclaimTurn<T>(queue, opts)).jobs;
  }

  /** @internal wclaim, with the next due time of the schedule. */
  async wclaimTurn<T = unknown>(queue: string, opts?: WeightedClaimOptions): Promise<{ jobs: LaneJob<T>[]; dueInMs: number }> {
    const k = this.keysOf(queue);
    const o = checkOptions<WeightedClaimOptions>('opts', opts, k.queue);
    const max = checkOptInt('opts.max', o.max, 1, CLAIM_BATCH_MAX, k.queue) ?? 0;
    return (await this.scripts.wclaim(k, this.leaseOf(k.queue, o), max, PROMOTE_PER_CLAIM)) as { jobs: LaneJob<T>[]; dueInMs: number };
  }

  /** Acknowledges a job; only the holder of the current attempt (`token`) may. */
  async complete(queue: string, jobId: string, token: number): Promise<boolean> {
    const k = this.keysOf(queue);
    return this.scripts.complete(k, checkJobId('jobId', jobId, k.queue), checkToken(token, k.queue));
  }

  /**
   * Acknowledges many jobs in one round trip per chunk, each exactly as `complete` would; one
   * boolean per ack, in order (false: the token was stale or the job unknown).
   */
  async completeMany(queue: string, acks: { jobId: string; token: number }[]): Promise<boolean[]> {
    const k = this.keysOf(queue);
    if (!Array.isArray(acks)) {
      throw new EchoMqError(invalidArgument('acks', 'must be an array of { jobId, token }', acks), { argument: 'acks', queue: k.queue });
    }
    const checked = acks.map((a, i) => {
      if (typeof a !== 'object' || a === null) {
        throw new EchoMqError(invalidArgument(`acks[${i}]`, 'must be { jobId, token }', a), { argument: `acks[${i}]`, queue: k.queue });
      }
      return { id: checkJobId(`acks[${i}].jobId`, a.jobId, k.queue), token: checkInt(`acks[${i}].token`, a.token, 1, Number.MAX_SAFE_INTEGER, k.queue) };
    });
    const out: boolean[] = [];
    for (let start = 0; start < checked.length; start += SUBMIT_CHUNK) {
      out.push(...(await this.scripts.completeMany(k, checked.slice(start, start + SUBMIT_CHUNK))));
    }
    return out;
  }

  /** Gives a held job back: retried after backoff into its lane, or dead once attempts are spent. */
  async fail(queue: string, jobId: string, token: number, error: unknown, opts?: FailOptions): Promise<FailOutcome> {
    const k = this.keysOf(queue);
    const id = checkJobId('jobId', jobId, k.queue);
    const t = checkToken(token, k.queue);
    const o = checkOptions<FailOptions>('opts', opts, k.queue);
    const maxAttempts = checkOptInt('opts.maxAttempts', o.maxAttempts, 1, 1_000_000, k.queue) ?? this.options.maxAttempts;
    const b = this.options.backoff;
    return this.scripts.fail(k, id, t, reasonOf(error), { maxAttempts, delayMs: b.delayMs, factor: b.factor, maxDelayMs: b.maxDelayMs });
  }

  /**
   * Hands a held job back unprocessed: it returns to the head of its lane, its attempt is not
   * counted against its budget, and `token` becomes stale. False when the token is not current.
   */
  async release(queue: string, jobId: string, token: number): Promise<boolean> {
    const k = this.keysOf(queue);
    return this.scripts.release(k, checkJobId('jobId', jobId, k.queue), checkToken(token, k.queue));
  }

  /** Renews the lease of a job still held under `token`; false when it is not. */
  async extend(queue: string, jobId: string, token: number, leaseMs: number): Promise<boolean> {
    return (await this.extendUntil(queue, jobId, token, leaseMs)) > 0;
  }

  /** @internal extend, returning the new deadline (0 when the lease is lost). */
  async extendUntil(queue: string, jobId: string, token: number, leaseMs: number): Promise<number> {
    const k = this.keysOf(queue);
    const id = checkJobId('jobId', jobId, k.queue);
    const t = checkToken(token, k.queue);
    return this.scripts.extend(k, id, t, checkInt('leaseMs', leaseMs, 1, MAX_LEASE_MS, k.queue));
  }

  /** Returns every job whose lease expired to its lane (or the dead set); how many. */
  async reap(queue: string, opts?: FailOptions): Promise<number> {
    const k = this.keysOf(queue);
    const o = checkOptions<FailOptions>('opts', opts, k.queue);
    const maxAttempts = checkOptInt('opts.maxAttempts', o.maxAttempts, 1, 1_000_000, k.queue) ?? this.options.maxAttempts;
    let total = 0;
    for (;;) {
      const n = await this.scripts.reap(k, maxAttempts, REAP_PER_CALL);
      total += n;
      if (n < REAP_PER_CALL) return total;
    }
  }

  /** Moves due scheduled jobs into their lanes now (claims do this too); how many. */
  async promote(queue: string): Promise<number> {
    const k = this.keysOf(queue);
    let total = 0;
    for (;;) {
      const { moved } = await this.scripts.promote(k, REAP_PER_CALL);
      total += moved;
      if (moved < REAP_PER_CALL) return total;
    }
  }

  /** Sets a lane's throughput share under wclaim: an integer >= 1. Never parks the lane. */
  async weight(queue: string, group: string, weight: number): Promise<void> {
    const k = this.keysOf(queue);
    const g = checkName('group', group, k.queue);
    await this.scripts.weight(k, g, checkInt('weight', weight, 1, 1_000_000, k.queue));
  }

  /** Sets a lane's concurrency ceiling (integer >= 1), or removes it with `null`. */
  async limit(queue: string, group: string, limit: number | null): Promise<void> {
    const k = this.keysOf(queue);
    const g = checkName('group', group, k.queue);
    await this.scripts.limit(k, g, limit === null ? null : checkInt('limit', limit, 1, 1_000_000, k.queue));
  }

  /** Takes a lane out of service; its pending jobs stay. */
  async pause(queue: string, group: string): Promise<void> {
    const k = this.keysOf(queue);
    await this.scripts.pause(k, checkName('group', group, k.queue), true);
  }

  /** Puts a paused lane back in service. */
  async resume(queue: string, group: string): Promise<void> {
    const k = this.keysOf(queue);
    await this.scripts.pause(k, checkName('group', group, k.queue), false);
  }

  /** One lane's state. */
  async lane(queue: string, group: string): Promise<LaneInfo> {
    const k = this.keysOf(queue);
    return this.scripts.lane(k, checkName('group', group, k.queue));
  }

  /** Every lane with pending or active jobs or a setting, by name. */
  async lanes(queue: string): Promise<LaneInfo[]> {
    return this.scripts.lanes(this.keysOf(queue), MAX_COUNT);
  }

  /** The first `count` (1 to 1,000) lanes of the ring, in the order claims serve them: O(count). */
  async ring(queue: string, count = 10): Promise<string[]> {
    const k = this.keysOf(queue);
    const n = checkInt('count', count, 1, 1_000, k.queue);
    return this.client.lrange(k.ring, 0, n - 1);
  }

  /** Ids of the first `count` (1 to 1,000) pending jobs of a lane, in the order it serves them. */
  async peek(queue: string, group: string, count = 1): Promise<string[]> {
    const k = this.keysOf(queue);
    const g = checkName('group', group, k.queue);
    const n = checkInt('count', count, 1, 1_000, k.queue);
    return this.client.zrange(k.lane(g), 0, n - 1);
  }

  /** The dead-lettered jobs, oldest death first, each with its `lastError`. */
  async dead<T = unknown>(queue: string, opts?: { offset?: number; count?: number }): Promise<LaneJob<T>[]> {
    const k = this.keysOf(queue);
    const o = checkOptions<{ offset: number; count: number }>('opts', opts, k.queue);
    const offset = checkOptInt('opts.offset', o.offset, 0, MAX_COUNT, k.queue) ?? 0;
    const count = checkOptInt('opts.count', o.count, 1, MAX_COUNT, k.queue) ?? 1_000;
    return (await this.scripts.dead(k, offset, count)) as LaneJob<T>[];
  }

  /** Puts a dead job back into its lane; false when the job is not dead. */
  async retryDead(queue: string, jobId: string): Promise<boolean> {
    const k = this.keysOf(queue);
    return this.scripts.retryDead(k, checkJobId('jobId', jobId, k.queue));
  }

  /** Counters of the queue: jobs completed, retried and dead-lettered since it was created. */
  async stats(queue: string): Promise<{ completed: number; retried: number; dead: number }> {
    const k = this.keysOf(queue);
    const h = await this.client.hgetall(k.stats);
    return { completed: Number(h.completed ?? 0), retried: Number(h.retried ?? 0), dead: Number(h.dead ?? 0) };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function reasonOf(error: unknown): string {
  let text: string;
  if (error instanceof Error) text = error.message || error.name;
  else if (typeof error === 'string') text = error;
  else {
    try {
      text = JSON.stringify(error) ?? String(error);
    } catch {
      text = String(error);
    }
  }
  return text.length > ERROR_MAX_CHARS ? text.slice(0, ERROR_MAX_CHARS) : text;
}

import type { LoggerService } from '@nestjs/common';
import { CLAIM_BATCH_MAX } from '../echomq.constants';
import { unsettledAck } from '../echomq.messages';
import type { LaneConsumerDescriptor, LaneJob, ResolvedEchoMqOptions } from '../interfaces';
import type { LanesService } from '../lanes.service';
import { settledBy } from '../redis/call-deadline';
import { dropRedisClient, duplicateClient } from '../redis/redis-connection';
import type { RedisClient } from '../scripts/lane-scripts';
import { encodePayload } from '../validation/validate';
import type { JobObservers } from './job-observers';
import { AckBatch } from './ack-batch';
import { JobPipeline } from './job-pipeline';
import { isUnrecoverable } from '../errors/unrecoverable.error';
import { ShardWaker } from './shard-waker';

/** @internal What a claim loop needs besides its consumer. */
export interface ClaimLoopDeps {
  lanes: LanesService;
  /** A connection of the loop's own, for the blocking wait. */
  blocking: RedisClient;
  /**
   * The idle wait on a sharded queue's shards, shared by the process's loops on the queue (the
   * orchestrator's); without it the loop makes its own, on duplicates of `blocking`.
   */
  shardWaker?: ShardWaker;
  options: ResolvedEchoMqOptions;
  logger: LoggerService;
  /** Process-local observers of the jobs run (metrics). */
  observers?: JobObservers;
  /** Backoff after a failed step: `baseMs * 2^failures`, at most `maxMs`. @default { baseMs: 50, maxMs: 5_000 } */
  errorBackoff?: { baseMs: number; maxMs: number };
  /**
   * A new blocking connection in place of `stale`, which it ends (the orchestrator's, so the module
   * still closes it at shutdown); without it the loop duplicates `stale` itself.
   */
  reopenBlocking?: (stale: RedisClient) => RedisClient;
}

interface Held {
  job: LaneJob;
  lost: boolean;
  done?: Promise<void>;
}

const ERROR_BACKOFF = { baseMs: 50, maxMs: 5_000 };

/**
 * How long past its own timeout an idle wait may go before the loop stops waiting and claims. A
 * BRPOP in flight when the connection drops is sent again at the reconnect with its whole timeout,
 * which would wake the loop that much after the scheduled job or timer it was waiting for; past
 * this the loop claims, and its blocking connection is opened afresh (the re-sent BRPOP ends with
 * the old one).
 */
export const IDLE_OVERDUE_MS = 500;
const OVERDUE: unique symbol = Symbol('overdue');

/**
 * The least time a stop gives the server to answer (a claim or an ack in flight, the hand-backs),
 * whatever shutdownTimeoutMs says: a server that is up answers in far less, one that is down never.
 */
const SERVER_WAIT_MS = 2_000;

/**
 * @internal One consumer's loop: claims (or wclaims) while it has free slots and there is work,
 * runs up to `concurrency` handlers, renews their leases, completes or fails each job, reaps
 * expired leases now and then, and when there is nothing to claim blocks on the queue's wake list
 * on its own connection (no polling).
 */
export class ClaimLoop {
  private started = false;
  private closing = false;
  private readonly running = new Map<string, Held>();
  /** Jobs of a weighted turn beyond the free slots: held (leases renewed) until a slot frees. */
  private readonly waiting: Held[] = [];
  /** Acks and fails on their way to the server, awaited at stop. */
  private readonly settling = new Set<Promise<void>>();
  private readonly acks: AckBatch;
  private readonly abort = new AbortController();
  private slotWaiter?: () => void;
  /** Claims sent and not back yet, and the slots they asked for. */
  private readonly claims = new Set<Promise<void>>();
  private reserved = 0;
  /** The last claim came back short: the ring ran dry (idle once no claim is in flight). */
  private dry = false;
  /** Until a claim comes back full, claim one batch at a time (see step). */
  private probing = true;
  private dueInMs = -1;
  /**
   * Failed steps since the server last answered a claim or a wait. NOTE: reset by an answer, not by a
   * step that returns: a step that only sends a claim returns before the claim fails.
   */
  private failures = 0;
  private claimError?: unknown;
  private renewTimer?: NodeJS.Timeout;
  private loop?: Promise<void>;
  private lastReap = 0;
  private readonly leaseMs: number;
  private readonly wakeKey: string;
  /** The idle wait over a sharded queue's shards: the deps' shared one, else its own, made when the queue first shows more than one. */
  private waker?: ShardWaker;
  private ownWaker = false;
  private readonly reapEveryMs: number;
  private readonly pipeline: JobPipeline;
  /** Since when (ms, host clock) claiming has been failing without a success; undefined when fine. */
  private failingSinceMs?: number;

  constructor(private readonly consumer: LaneConsumerDescriptor, private readonly deps: ClaimLoopDeps) {
    this.leaseMs = consumer.leaseMs ?? deps.options.leaseMs;
    this.wakeKey = deps.lanes.keysOf(consumer.queue).wake;
    this.reapEveryMs = Math.min(deps.options.idleBlockMs, this.leaseMs);
    this.pipeline = new JobPipeline(consumer, this.leaseMs, deps.logger, deps.observers);
    this.acks = new AckBatch(deps.lanes, consumer.queue, consumer.keepCompletedMs);
  }

  /** Jobs whose handlers are running now. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Whether the loop is claiming fine, or since when it has been failing (for health checks). */
  get health(): { name: string; queue: string; leaseMs: number; failingSinceMs?: number } {
    return { name: this.consumer.name, queue: this.consumer.queue, leaseMs: this.leaseMs, failingSinceMs: this.failingSinceMs };
  }

  /** Starts the loop; a loop starts once. */
  start(): void {
    if (this.started) throw new Error(`The claim loop of ${this.consumer.name} is already started.`);
    this.started = true;
    this.renewTimer = setInterval(() => void this.renew(), Math.max(Math.floor(this.leaseMs / 3), 50));
    this.loop = this.run();
  }

  /**
   * Stops claiming, wakes the blocking wait at once, waits for running handlers up to `timeoutMs`,
   * then hands back every job still held so it is served again.
   */
  async stop(timeoutMs: number): Promise<void> {
    if (!this.started || this.closing) return;
    this.closing = true;
    this.abort.abort();
    this.slotWaiter?.();
    // NOTE: dropping the connection is how a BRPOP in flight is interrupted; it is the loop's own.
    dropRedisClient(this.deps.blocking);
    if (this.ownWaker) this.waker?.close();
    // NOTE: bounded waits: while the server is down, a claim or an ack in flight waits for it without
    // end (ioredis holds commands until it reconnects), and the shutdown must not.
    const waitMs = Math.max(timeoutMs, SERVER_WAIT_MS);
    const handlersBy = Date.now() + timeoutMs;
    const serverBy = Date.now() + waitMs;
    let answered = await settledBy(this.loop ?? Promise.resolve(), serverBy);
    // Claims still on their way back hand their jobs back as they land (closing is set).
    answered = answered && await settledBy(Promise.allSettled([...this.claims]), serverBy);
    await settledBy(Promise.allSettled([...this.running.values()].map((h) => h.done)), handlersBy);
    answered = answered && await settledBy(Promise.allSettled([...this.settling]), serverBy);
    clearInterval(this.renewTimer);
    const unfinished = [...this.running.values(), ...this.waiting.splice(0)];
    if (this.running.size > 0) {
      this.deps.logger.warn(
        `${this.consumer.name}: ${this.running.size} handler(s) still running after ${timeoutMs} ms; their jobs are handed back to be served again.`
      );
    }
    const handedBack = await settledBy(Promise.all(unfinished.map((h) => this.giveBack(h.job))),
      Math.max(serverBy, Date.now() + SERVER_WAIT_MS));
    if (!answered || !handedBack) {
      this.deps.logger.warn(`${this.consumer.name}: the server did not answer within ${waitMs} ms of the shutdown; stopping anyway. Jobs this process still held are served again once their leases end.`);
    }
  }

  private async run(): Promise<void> {
    while (!this.closing) {
      try {
        await this.step();
      } catch (err) {
        if (this.closing) break;
        const failures = ++this.failures;
        this.failingSinceMs ??= Date.now();
        if (failures === 1 || failures % 50 === 0) {
          this.deps.logger.error(
            `${this.consumer.name}: claiming from "${this.consumer.queue}" failed (${(err as Error).message}); retrying with backoff (${failures} failure(s) in a row).`,
            (err as Error).stack,
          );
        }
        const backoff = this.deps.errorBackoff ?? ERROR_BACKOFF;
        await this.sleep(Math.min(backoff.baseMs * 2 ** Math.min(failures, 7), backoff.maxMs));
      }
    }
  }

  private async step(): Promise<void> {
    if (this.claimError !== undefined) {
      const err = this.claimError;
      this.claimError = undefined;
      throw err;
    }
    while (this.waiting.length > 0 && this.running.size < this.consumer.concurrency) this.begin(this.waiting.shift()!);
    if (this.dry) {
      // NOTE: the ring ran dry; idle only once no claim of ours is still on its way back.
      if (this.claims.size > 0) return this.changed();
      this.dry = false;
      return this.idle(this.dueInMs);
    }
    const free = this.consumer.concurrency - this.running.size - this.waiting.length - this.reserved;
    // Under load a second claim goes out while the first is on its way back (for at least half
    // the slots), so the server serves one batch while this process runs the other. After the
    // ring ran dry, one claim probes first, so an idle consumer costs no extra command.
    const second = this.claims.size === 1;
    if (free <= 0 || this.claims.size >= 2 || (second && (this.probing || free * 2 < this.consumer.concurrency))) {
      return this.changed();
    }
    await this.reapIfDue(false);
    const split = !this.probing && !second && this.consumer.concurrency > 1;
    this.launchClaim(Math.min(split ? Math.ceil(free / 2) : free, CLAIM_BATCH_MAX));
  }

  /** Sends one claim without waiting for it; its jobs start when it comes back. */
  private launchClaim(n: number): void {
    this.reserved += n;
    const claim: Promise<void> = this.claimBatch(n).then(
      async (turn) => {
        this.reserved -= n;
        this.failingSinceMs = undefined;
        this.failures = 0;
        if (this.closing) {
          await Promise.all(turn.jobs.map((j) => this.giveBack(j)));
          return;
        }
        for (const job of turn.jobs) this.startOrHold({ job, lost: false });
        this.dry = turn.jobs.length < n;
        this.probing = this.dry;
        this.dueInMs = turn.dueInMs;
      },
      (err: unknown) => {
        this.reserved -= n;
        this.claimError = err;
      },
    ).finally(() => {
      this.claims.delete(claim);
      this.kick();
    });
    this.claims.add(claim);
  }

  /**
   * At least `n` jobs, or fewer when the ring runs dry: claimMany, or for a weighted consumer as many
   * whole weighted turns as `n` slots need (wclaimMany), the last turn served whole.
   */
  private async claimBatch(n: number): Promise<{ jobs: LaneJob[]; dueInMs: number }> {
    const { queue } = this.consumer;
    if (!this.consumer.weighted) return this.deps.lanes.claimMany(queue, n, { leaseMs: this.leaseMs });
    const { turns, dueInMs } = await this.deps.lanes.wclaimMany(queue, n, { leaseMs: this.leaseMs, untilJobs: n });
    return { jobs: turns.flat(), dueInMs };
  }

  /**
   * Starts a claimed job, or holds it (lease renewed) behind those already waiting when every slot
   * is taken: a weighted turn may bring more jobs than slots, and they start in the order served,
   * so the shares stay exact per whole turn at any concurrency.
   */
  private startOrHold(held: Held): void {
    if (this.waiting.length === 0 && this.running.size < this.consumer.concurrency) this.begin(held);
    else this.waiting.push(held);
  }

  /** Blocks on the wake list until a submit pushes a token, a scheduled job falls due, or a reap is due. */
  private async idle(dueInMs: number): Promise<void> {
    let ms = this.deps.options.idleBlockMs;
    if (dueInMs >= 0) ms = Math.min(ms, Math.max(dueInMs, 5));
    const { queue } = this.consumer;
    const shards = await this.deps.lanes.shardsOf(queue);
    let woke: unknown;
    if (shards === 1) {
      const blocking = this.deps.blocking;
      // NOTE: `ready` during a wait sent on a ready connection is a reconnect, after which the BRPOP
      // went again with its whole timeout: the loop claims at once. A BRPOP sent before the connection
      // was first ready waits in ioredis's queue and goes at `ready`: that one is no cut.
      let reconnected: (() => void) | undefined;
      const cut = blocking.status === 'ready' ? new Promise<void>((resolve) => blocking.once('ready', (reconnected = resolve))) : undefined;
      try {
        woke = await this.unlessOverdue(blocking.brpop(this.wakeKey, (ms / 1000).toFixed(3)), ms, () => this.renewBlocking(blocking), cut);
      } finally {
        if (reconnected) blocking.off('ready', reconnected);
      }
    } else {
      const keys = this.deps.lanes.keysOf(queue);
      const waker = (this.waker ??= this.deps.shardWaker ?? this.makeWaker());
      woke = await this.unlessOverdue(waker.wait(Array.from({ length: shards }, (_, i) => keys.shardKeys(i).wake), ms,
        (i) => this.deps.lanes.shardWoke(queue, i), this.abort.signal), ms, () => {
        waker.renew();
        // NOTE: a waker of the loop's own waits on shard 0 with the loop's blocking connection, which renew() ended.
        if (this.ownWaker) this.renewBlocking(this.deps.blocking);
      });
    }
    this.failingSinceMs = undefined;
    this.failures = 0;
    if (!woke && !this.closing) await this.reapIfDue(true);
  }

  /**
   * What the idle wait `pending` (of `ms`) answers, or null once it is IDLE_OVERDUE_MS past its time
   * or `cut` settles first (its connection came back): `renew` then ends the connection(s) it blocks
   * (see IDLE_OVERDUE_MS), and the loop claims.
   */
  private async unlessOverdue<T>(pending: Promise<T>, ms: number, renew: () => void, cut?: Promise<void>): Promise<T | null> {
    let timer: NodeJS.Timeout | undefined;
    const overdue = new Promise<typeof OVERDUE>((resolve) => (timer = setTimeout(() => resolve(OVERDUE), ms + IDLE_OVERDUE_MS)));
    try {
      const first: T | typeof OVERDUE = await Promise.race([pending, overdue, ...(cut ? [cut.then((): typeof OVERDUE => OVERDUE)] : [])]);
      if (first !== OVERDUE) return first as T;
      pending.catch(() => undefined);
      if (!this.closing) renew();
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Puts a new blocking connection in place of `stale` (see IDLE_OVERDUE_MS). */
  private renewBlocking(stale: RedisClient): void {
    if (this.closing || this.deps.blocking !== stale) return;
    if (this.deps.reopenBlocking) {
      this.deps.blocking = this.deps.reopenBlocking(stale);
    } else {
      this.deps.blocking = duplicateClient(stale);
      dropRedisClient(stale);
    }
  }

  /** A waker of the loop's own (a loop made without the orchestrator): shard 0 on its blocking connection. */
  private makeWaker(): ShardWaker {
    this.ownWaker = true;
    return new ShardWaker((i) => (i === 0 ? this.deps.blocking : duplicateClient(this.deps.blocking)), (c) => dropRedisClient(c));
  }

  private async reapIfDue(idle: boolean): Promise<void> {
    const now = Date.now();
    if (!idle && now - this.lastReap < this.reapEveryMs) return;
    if (idle && now - this.lastReap < this.deps.options.idleBlockMs / 2) return;
    this.lastReap = now;
    const n = await this.deps.lanes.reap(this.consumer.queue, { maxAttempts: this.consumer.maxAttempts });
    if (n > 0) this.deps.logger.log(`${this.consumer.name}: reaped ${n} expired lease(s) on "${this.consumer.queue}".`);
  }

  private begin(held: Held): void {
    this.running.set(held.job.id, held);
    held.done = this.execute(held).finally(() => {
      this.running.delete(held.job.id);
      this.kick();
    });
  }

  /**
   * Runs the handler, then settles the job without holding the slot: the ack (or fail) and the
   * next claim leave in the same turn of the event loop, on one connection, in that order.
   */
  private async execute(held: Held): Promise<void> {
    const { job } = held;
    let settle: Promise<void>;
    try {
      // NOTE: the result is what the pipeline yields (the handler behind its interceptors): that is
      // what is kept and what the completed event reports.
      const result = await this.pipeline.run(job);
      settle = this.acks.ack(job, this.keepableResult(job, result)).then(
        (ok) => {
          if (ok) this.pipeline.completed(job, result);
          else this.pipeline.lost(job);
          if (!ok) this.deps.logger.warn(`${this.consumer.name}: job ${job.id} finished after its lease was lost (attempt ${job.attempt}); the completion was refused.`);
        },
        (err: unknown) => {
          this.deps.logger.error(unsettledAck(this.consumer.name, ['complete', 'completion'], job.id, err));
        },
      );
    } catch (err) {
      settle = this.failJob(job, err);
    }
    this.settling.add(settle);
    void settle.finally(() => this.settling.delete(settle));
  }

  private async failJob(job: LaneJob, err: unknown): Promise<void> {
    const { lanes, logger } = this.deps;
    try {
      const outcome = await lanes.fail(this.consumer.queue, job.id, job.attempt, err,
        { maxAttempts: this.consumer.maxAttempts, backoff: this.consumer.backoff, dead: isUnrecoverable(err) });
      const reason = err instanceof Error ? err.message : String(err);
      if (outcome === 'stale') this.pipeline.lost(job);
      else this.pipeline.failed(job, err, outcome);
      if (outcome === 'dead') {
        logger.error(`${this.consumer.name}: job ${job.id} of lane "${job.group}" is dead after attempt ${job.attempt}: ${reason}`, (err as Error)?.stack);
      } else if (outcome === 'retry') {
        logger.warn(`${this.consumer.name}: job ${job.id} of lane "${job.group}" failed on attempt ${job.attempt} and will be retried: ${reason}`);
      } else {
        logger.warn(`${this.consumer.name}: job ${job.id} failed after its lease was lost; the failure was not recorded.`);
      }
    } catch (failErr) {
      logger.error(unsettledAck(this.consumer.name, ['record the failure of', 'failure'], job.id, failErr));
    }
  }

  /**
   * The handler's return value as the job's result, or undefined (no result) when it has no JSON
   * form or is over maxPayloadBytes: a result that cannot be kept must not fail a handled job.
   */
  private keepableResult(job: LaneJob, result: unknown): unknown {
    if (result === undefined) return undefined;
    try {
      encodePayload(result, this.deps.lanes.settings.maxPayloadBytes, this.consumer.queue, 'result');
      return result;
    } catch (err) {
      this.deps.logger.warn(`${this.consumer.name}: the result of job ${job.id} is not kept: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** Renews the lease of every held job, running or waiting for a slot, in one call per tick. */
  private async renew(): Promise<void> {
    const held = [...this.running.values(), ...this.waiting].filter((h) => !h.lost);
    if (held.length === 0) return;
    let until: number[];
    try {
      until = await this.deps.lanes.extendMany(this.consumer.queue, held.map((h) => ({ jobId: h.job.id, token: h.job.attempt })), this.leaseMs);
    } catch {
      // NOTE: a connection error; the next renewal tries again, well within the lease.
      return;
    }
    held.forEach((h, i) => {
      if (until[i] > 0) {
        h.job.leaseUntil = until[i];
      } else {
        h.lost = true;
        this.deps.logger.warn(`${this.consumer.name}: lost the lease of job ${h.job.id} (attempt ${h.job.attempt}); its result will be refused.`);
      }
    });
  }

  private async giveBack(job: LaneJob): Promise<void> {
    try {
      await this.deps.lanes.release(this.consumer.queue, job.id, job.attempt);
    } catch (err) {
      this.deps.logger.error(unsettledAck(this.consumer.name, ['hand back', 'hand-back'], job.id, err));
    }
  }

  /** Resolves when a handler finished or a claim came back (coalesced over one turn) or on stop. */
  private changed(): Promise<void> {
    return new Promise((resolve) => {
      this.slotWaiter = resolve;
    });
  }

  private kick(): void {
    const waiter = this.slotWaiter;
    if (!waiter) return;
    this.slotWaiter = undefined;
    // NOTE: handlers that finish in the same tick free their slots together: claim them in one call,
    // after the acks they queued (those flush first, so the ack precedes the claim on the wire).
    setImmediate(waiter);
  }

  /** Waits `ms`, or less if the loop stops; leaves no listener or timer behind either way. */
  private sleep(ms: number): Promise<void> {
    const signal = this.abort.signal;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      // NOTE: the listener is removed when the timer fires too: a long outage sleeps thousands of
      // times on the one signal of the loop, and each kept listener would pin its closure.
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

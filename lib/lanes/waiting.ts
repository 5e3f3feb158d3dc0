import type { LoggerService } from '@nestjs/common';
import { MAX_WAIT_MS } from '../echomq.constants';
import { waitClosed, waitTimedOut } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { JobInfo, WaitForOptions } from '../interfaces';
import type { LaneKeys } from '../redis/lane-keys';
import { announcedRow, JobRow } from '../scripts/job-replies';
import type { RedisClient } from '../scripts/lane-scripts';
import { checkInt, checkJobId, checkOptions } from '../validation/validate';
import { toJobInfo } from './jobs';
import type { LaneContext } from './lane-context';

/** @internal Opens and closes the subscriber connection (the module's connection manager, or a duplicate). */
export interface SubscriberSource {
  open(): RedisClient;
  close(client: RedisClient): Promise<void>;
  /** Whether the connection is closed once nobody waits (a duplicate nobody else would close). */
  closeWhenIdle: boolean;
}

interface Waiter {
  queue: string;
  /** The keys of the shard that holds the job (the queue's own while unsharded). */
  keys: LaneKeys;
  resolve(info: JobInfo | null): void;
  reject(err: unknown): void;
}

const isFinished = (row: JobRow): boolean => row.state === 'completed' || row.state === 'dead';

/**
 * @internal waitFor without polling. One subscriber connection per LanesService, opened on the first
 * wait, subscribed to the `done` channel of each queue someone waits on. A wait subscribes first,
 * then runs watchJob, which reads the row and, when the job is unfinished, marks it so that the
 * script that finishes it publishes the outcome: a finish either precedes the mark (and the read
 * shows it) or sees it (and the message comes, or, when it came before the subscription was active,
 * the outcome kept 10 s for waiters at emq:{q}:done:<id> shows it), so none is missed. Jobs nobody
 * waits for publish nothing. PUBLISH from a script reaches a subscriber on any node of a Redis Cluster.
 */
export class LaneWaiting {
  private subscriber?: RedisClient;
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly channels = new Map<string, { count: number; ready: Promise<unknown> }>();
  private closed = false;

  constructor(private readonly ctx: LaneContext, private readonly source: SubscriberSource, private readonly logger: LoggerService) {}

  async waitFor(queue: string, jobId: unknown, opts: unknown): Promise<JobInfo | null> {
    const k0 = this.ctx.keysOf(queue);
    const id = checkJobId('jobId', jobId, k0.queue);
    const o = checkOptions<WaitForOptions>('opts', opts, k0.queue);
    const timeoutMs = checkInt('opts.timeoutMs', o.timeoutMs, 1, MAX_WAIT_MS, k0.queue);
    if (this.closed) throw new EchoMqError(waitClosed(k0.queue, id), { code: 'UNAVAILABLE', queue: k0.queue });
    const until = Date.now() + timeoutMs;
    const info = await this.waitIn(k0, id, timeoutMs);
    // NOTE: a miss by a shard map up to 2 s old (a change placed the job by a new one) waits again
    // by the map read now, for what is left of the time.
    if (info === null && (await this.ctx.shards.mapChanged(k0))) return this.waitIn(k0, id, Math.max(1, until - Date.now()));
    return info;
  }

  /** One wait for job `id` in the shard this process's map puts it in: its outcome, or null when that shard does not hold it. */
  private async waitIn(k0: LaneKeys, id: string, timeoutMs: number): Promise<JobInfo | null> {
    // NOTE: a sharded queue's job is watched in its shard, whose scripts announce it on its own channel.
    const k = await this.ctx.shards.ofJob(k0, id);
    return new Promise<JobInfo | null>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        queue: k.queue,
        keys: k,
        resolve: (info) => {
          done();
          resolve(info);
        },
        reject: (err) => {
          done();
          reject(err);
        },
      };
      const done = (): void => {
        if (timer) clearTimeout(timer);
        timer = undefined;
        this.leave(k, id, waiter);
      };
      timer = setTimeout(() => waiter.reject(new EchoMqError(waitTimedOut(k.queue, id, timeoutMs), { code: 'TIMEOUT', queue: k.queue })), timeoutMs);
      this.join(k, id, waiter);
      void this.watch(k, id, waiter);
    });
  }

  /** Rejects every open wait, and any later one, with UNAVAILABLE (the application is shutting down). */
  close(): void {
    this.closed = true;
    for (const [key, set] of [...this.waiters]) {
      const id = key.slice(key.indexOf('\n') + 1);
      for (const w of [...set]) w.reject(new EchoMqError(waitClosed(w.queue, id), { code: 'UNAVAILABLE', queue: w.queue }));
    }
  }

  /**
   * Marks the row at once (so the mark is on the wire before anything the caller sends after this
   * call, a complete included), then, once subscribed, reads again: a finish between the mark and
   * the subscription published to nobody, but its outcome is kept for waiters (10 s, whether or not
   * the row is), so this recheck sees it. A finish after the subscription comes as a message.
   */
  private async watch(k: LaneKeys, id: string, waiter: Waiter): Promise<void> {
    try {
      const marked = this.ctx.scripts.watchJob(k, id);
      const ready = this.channels.get(k.doneChannel)?.ready;
      const row = await marked;
      if (!row || isFinished(row)) return this.settle(k.queue, id, row, waiter);
      await ready;
      this.settle(k.queue, id, await this.ctx.scripts.watchJob(k, id, true), waiter);
    } catch (err) {
      waiter.reject(err);
    }
  }

  /** Resolves a waiter when the row is gone (null) or finished; leaves it waiting otherwise. */
  private settle(queue: string, id: string, row: JobRow | null, waiter: Waiter): void {
    if (!row) waiter.resolve(null);
    else if (isFinished(row)) waiter.resolve(toJobInfo(queue, row, this.ctx.maxAttemptsOf(queue)));
  }

  private join(k: LaneKeys, id: string, waiter: Waiter): void {
    const key = `${k.doneChannel}\n${id}`;
    let set = this.waiters.get(key);
    if (!set) this.waiters.set(key, (set = new Set()));
    set.add(waiter);
    const channel = this.channels.get(k.doneChannel);
    if (channel) {
      channel.count++;
      return;
    }
    const sub = this.connect();
    // NOTE: a failed subscribe rejects the waits that depend on it (through watch), not the process.
    const ready = sub.subscribe(k.doneChannel).catch((err: unknown) => {
      this.channels.delete(k.doneChannel);
      throw err;
    });
    ready.catch(() => undefined);
    this.channels.set(k.doneChannel, { count: 1, ready });
  }

  private leave(k: LaneKeys, id: string, waiter: Waiter): void {
    const key = `${k.doneChannel}\n${id}`;
    const set = this.waiters.get(key);
    if (!set?.delete(waiter)) return;
    if (set.size === 0) this.waiters.delete(key);
    const channel = this.channels.get(k.doneChannel);
    if (channel && --channel.count === 0) {
      this.channels.delete(k.doneChannel);
      void this.subscriber?.unsubscribe(k.doneChannel).catch(() => undefined);
    }
    if (this.channels.size === 0 && this.source.closeWhenIdle && this.subscriber) {
      const sub = this.subscriber;
      this.subscriber = undefined;
      void this.source.close(sub);
    }
  }

  private connect(): RedisClient {
    if (this.subscriber) return this.subscriber;
    const sub = this.source.open();
    let connectedOnce = false;
    sub.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    sub.on('ready', () => {
      // NOTE: ioredis subscribes again after a reconnect, but what was published meanwhile is gone:
      // read every waited row once more, so a finish during the outage is not missed.
      if (connectedOnce) void this.recheckAll();
      connectedOnce = true;
    });
    this.subscriber = sub;
    return sub;
  }

  private onMessage(channel: string, message: string): void {
    const row = announcedRow(message);
    if (!row) return;
    const set = this.waiters.get(`${channel}\n${row.id}`);
    if (!set) return;
    for (const waiter of [...set]) waiter.resolve(toJobInfo(waiter.queue, row, this.ctx.maxAttemptsOf(waiter.queue)));
  }

  private async recheckAll(): Promise<void> {
    for (const [key, set] of [...this.waiters]) {
      const id = key.slice(key.indexOf('\n') + 1);
      for (const waiter of [...set]) {
        try {
          const row = await this.ctx.scripts.watchJob(waiter.keys, id, true);
          this.settle(waiter.queue, id, row, waiter);
        } catch (err) {
          this.logger.warn(`waitFor: could not re-read job ${id} after a reconnect (${(err as Error).message}); it waits on.`);
        }
      }
    }
  }
}

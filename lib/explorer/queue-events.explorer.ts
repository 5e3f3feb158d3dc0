import {
  BeforeApplicationShutdown, Inject, Injectable, LoggerService, OnApplicationBootstrap, OnModuleInit, Optional,
} from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { randomUUID } from 'crypto';
import type { QueueEventName } from '../decorators/queue-events.decorator';
import { ECHOMQ_MODULE_OPTIONS, ECHOMQ_REDIS_CLIENT } from '../echomq.constants';
import { echoMqLogger } from '../echomq.logger';
import {
  invalidListenerQueue, queueEventFailed, queueEventsRefused, queueEventNotMethod, queueEventWithoutListener, unknownQueueEvent,
} from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { QueueEvent, ResolvedEchoMqOptions } from '../interfaces';
import { settledBy } from '../redis/call-deadline';
import { EchoMqConnections } from '../redis/echomq-connections';
import { LaneKeys } from '../redis/lane-keys';
import { readShardMap, toShardMap } from '../shards/shard-counts';
import { LaneScripts, RedisClient } from '../scripts/lane-scripts';
import { checkName } from '../validation/validate';
import { EchoMqMetadataAccessor } from './echomq-metadata.accessor';

/** @internal Every event name `@OnQueueEvent` accepts. */
export const QUEUE_EVENT_NAMES: readonly QueueEventName[] = ['submitted', 'completed', 'failed', 'dead', 'progress', 'cancelled'];
/** How long shutdown waits to withdraw this process's announcements before it goes on without. */
export const WITHDRAW_WAIT_MS = 2_000;

/** How long an announcement lasts, and how often it is renewed (well before it lapses). */
const PRESENCE_TTL_MS = 10_000;
const PRESENCE_EVERY_MS = 3_000;

interface Handler {
  name: string;
  event: QueueEventName;
  fn: (e: QueueEvent) => unknown;
}

/**
 * @internal Finds the `@QueueEventsListener` providers at module init (misuse fails the boot); at
 * bootstrap subscribes one connection to their queues' event channels and announces this process
 * on each queue (renewed every 3 s, lapsing 10 s after the last renewal), so the scripts publish
 * while and only while some process listens; withdraws the announcements before shutdown.
 */
@Injectable()
export class QueueEventsExplorer implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly byQueue = new Map<string, Handler[]>();
  private readonly logger: LoggerService;
  private readonly token = randomUUID();
  private subscriber?: RedisClient;
  private timer?: NodeJS.Timeout;
  private scripts?: LaneScripts;
  /** Events channel -> queue, of every shard followed. */
  private readonly queueOf = new Map<string, string>();
  /** The shards whose listeners key this process renews. */
  private followed: LaneKeys[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly accessor: EchoMqMetadataAccessor,
    @Inject(ECHOMQ_MODULE_OPTIONS) private readonly options: ResolvedEchoMqOptions,
    @Inject(ECHOMQ_REDIS_CLIENT) private readonly client: RedisClient,
    @Optional() private readonly connections?: EchoMqConnections,
  ) {
    this.logger = echoMqLogger(options);
  }

  onModuleInit(): void {
    try {
      this.explore();
    } catch (err) {
      this.connections?.abortBoot();
      throw err;
    }
  }

  /** The queues some listener of this process hears. */
  queues(): string[] {
    return [...this.byQueue.keys()];
  }

  private explore(): void {
    const seen = new Set<unknown>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string | symbol, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || seen.has(instance)) continue;
      const target = instance.constructor as Function;
      const queue = this.accessor.getQueueEventsListener(target);
      const uses = this.accessor.getQueueEvents(target);
      const className = target.name || 'AnonymousClass';
      if (queue === undefined) {
        if (uses.length > 0) throw new EchoMqError(queueEventWithoutListener(className));
        continue;
      }
      seen.add(instance);
      try {
        checkName('queue', queue);
      } catch {
        throw new EchoMqError(invalidListenerQueue(className, queue), { code: 'MISCONFIGURED', argument: 'queue' });
      }
      const list = this.byQueue.get(queue) ?? [];
      for (const { event, method } of uses) {
        const member = String(method);
        if (!(QUEUE_EVENT_NAMES as readonly string[]).includes(event)) {
          throw new EchoMqError(unknownQueueEvent(className, member, event), { code: 'MISCONFIGURED', argument: 'event' });
        }
        const fn = instance[method];
        if (typeof fn !== 'function') throw new EchoMqError(queueEventNotMethod(className, member), { code: 'MISCONFIGURED', argument: 'event' });
        list.push({ name: `${className}.${member}`, event: event as QueueEventName, fn: (e) => (fn as (e: QueueEvent) => unknown).call(instance, e) });
      }
      this.byQueue.set(queue, list);
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.byQueue.size === 0) return;
    // NOTE: its own connection (a subscribed one takes no other command); a plain PUBLISH from a
    // script reaches a subscriber on any node of a Cluster, and Redis 6.2 has nothing else.
    const sub = this.connections ? this.connections.open('echomq:events') : this.client.duplicate();
    this.subscriber = sub;
    sub.on('message', (channel: string, message: string) => {
      const queue = this.queueOf.get(channel);
      if (queue !== undefined) this.deliver(queue, message);
    });
    this.scripts = new LaneScripts(this.client);
    try {
      await this.follow(await this.shardKeys());
    } catch (err) {
      // NOTE: as a claim loop that is refused: logged, and the app keeps running (without events).
      this.logger.error(queueEventsRefused(this.queues().map((q) => `"${q}"`).join(', '), (err as Error).message, this.options.prefix));
      return;
    }
    await this.announce(PRESENCE_TTL_MS);
    this.timer = setInterval(() => void this.announce(PRESENCE_TTL_MS), PRESENCE_EVERY_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.subscriber) return;
    clearInterval(this.timer);
    // NOTE: bounded: a server that does not answer would hold app.close() for good, and an
    // announcement not withdrawn lapses by itself within PRESENCE_TTL_MS.
    await settledBy(this.announce(0), Date.now() + WITHDRAW_WAIT_MS);
    const sub = this.subscriber;
    this.subscriber = undefined;
    if (this.connections) await this.connections.close(sub);
    else sub.disconnect();
  }

  /**
   * The keys of every shard of the listened queues: a sharded queue's jobs publish their events on
   * their own shard's channel, while that shard's `listeners` key says someone listens (see
   * LanesService.shards). The shard counts are read again with every renewal of the presence, so
   * a queue sharded while the app runs is followed within PRESENCE_EVERY_MS.
   */
  private async shardKeys(): Promise<LaneKeys[]> {
    const queues = [...this.byQueue.keys()].map((q) => new LaneKeys(this.options.prefix, q));
    if (this.options.compat === 'echomq') return queues;
    const maps = await Promise.all(queues.map(async (k) => toShardMap(k.queue, await readShardMap(this.client, k))));
    return queues.flatMap((k, i) => {
      k.useShardTags(maps[i].tags);
      return Array.from({ length: maps[i].n }, (_, s) => k.shardKeys(s));
    });
  }

  /**
   * Subscribes to the channels of every shard followed, before the presence that makes the scripts
   * publish there is renewed. NOTE: again at every renewal, channels already subscribed included: a
   * SUBSCRIBE of a channel held changes nothing, and a subscription the connection lost (seen once,
   * under heavy load, with the presence still renewed) comes back within PRESENCE_EVERY_MS instead
   * of never.
   */
  private async follow(keys: LaneKeys[]): Promise<void> {
    for (const k of keys) this.queueOf.set(k.eventsChannel, k.queue);
    this.followed = keys;
    if (keys.length > 0) await this.subscriber!.subscribe(...keys.map((k) => k.eventsChannel));
  }

  private async announce(ttlMs: number): Promise<void> {
    try {
      if (ttlMs > 0) await this.follow(await this.shardKeys());
      await Promise.all(this.followed.map((k) => this.scripts!.announceListener(k, this.token, ttlMs)));
    } catch (err) {
      this.logger.warn(`could not ${ttlMs ? 'announce' : 'withdraw'} this process's queue-event listeners: ${(err as Error).message}`);
    }
  }

  private deliver(queue: string, message: string): void {
    let e: QueueEvent;
    try {
      e = { ...(JSON.parse(message) as Omit<QueueEvent, 'queue'>), queue };
    } catch {
      return;
    }
    for (const h of this.byQueue.get(queue) ?? []) {
      if (h.event !== e.event) continue;
      const report = (err: unknown) =>
        this.logger.error(queueEventFailed(h.name, e.event, e.jobId, err instanceof Error ? err.message : String(err)), (err as Error)?.stack);
      try {
        const out = h.fn(e);
        if (out && typeof (out as PromiseLike<unknown>).then === 'function') (out as PromiseLike<unknown>).then(undefined, report);
      } catch (err) {
        report(err);
      }
    }
  }
}

import { Inject, Injectable, LoggerService, OnModuleInit, Optional } from '@nestjs/common';
import { echoMqLogger } from '../echomq.logger';
import { DiscoveryService, ExternalContextCreator } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { ECHOMQ_MODULE_OPTIONS, MAX_KEEP_COMPLETED_MS } from '../echomq.constants';
import {
  duplicateConsumer, invalidConsumerOption, invalidConsumerQueue, laneEventNotMethod, laneEventWithoutConsumer, missingHandle,
  scopedConsumer, unknownLaneEvent, weightedWithoutConsumer,
} from '../echomq.messages';
import { LANE_EVENT_NAMES, LaneEventListeners } from '../events/lane-event-listeners';
import { EchoMqError } from '../errors';
import type { EchoMqBackoff, LaneConsumerDescriptor, LaneConsumerMetadata, LaneJob, ResolvedEchoMqOptions } from '../interfaces';
import { resolveBackoff } from '../echomq.options';
import { EchoMqConnections } from '../redis/echomq-connections';
import { checkName } from '../validation/validate';
import { EchoMqMetadataAccessor } from './echomq-metadata.accessor';
import { createLaneHandler } from './lane-handler.factory';

/** What `@LaneConsumer` stores (its options and the queue): any other key fails the boot. */
const CONSUMER_OPTIONS = new Set(['queue', 'concurrency', 'leaseMs', 'maxAttempts', 'keepCompletedMs', 'backoff']);

/**
 * @internal Finds the `@LaneConsumer` providers at module init and validates them; it starts
 * nothing (the orchestrator does, at application bootstrap). A consumer it refuses fails the boot,
 * and then closes the module's connections first (Nest runs no shutdown hook after a failed boot).
 */
@Injectable()
export class LaneConsumerExplorer implements OnModuleInit {
  private consumers: readonly LaneConsumerDescriptor[] = [];
  private readonly logger: LoggerService;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly accessor: EchoMqMetadataAccessor,
    @Inject(ECHOMQ_MODULE_OPTIONS) options: ResolvedEchoMqOptions,
    private readonly contexts: ExternalContextCreator,
    @Optional() private readonly connections?: EchoMqConnections,
  ) {
    this.logger = echoMqLogger(options);
  }

  onModuleInit(): void {
    try {
      this.consumers = Object.freeze(this.explore());
    } catch (err) {
      this.connections?.abortBoot();
      throw err;
    }
  }

  /** The consumers found at module init. */
  getConsumers(): readonly LaneConsumerDescriptor[] {
    return this.consumers;
  }

  /** Walks the providers and builds one descriptor per consumer class. */
  explore(): LaneConsumerDescriptor[] {
    const found: LaneConsumerDescriptor[] = [];
    const seen = new Set<unknown>();
    for (const wrapper of this.discovery.getProviders()) {
      const target = this.targetOf(wrapper);
      if (!target) continue;
      const meta = this.accessor.getLaneConsumer(target);
      const weighted = this.accessor.isWeighted(target);
      const className = target.name || 'AnonymousClass';
      if (!meta) {
        if (weighted) throw new EchoMqError(weightedWithoutConsumer(className));
        if (this.accessor.getLaneEvents(target).length > 0) throw new EchoMqError(laneEventWithoutConsumer(className));
        continue;
      }
      if (!wrapper.isDependencyTreeStatic()) {
        this.logger.warn(scopedConsumer(className));
        continue;
      }
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance) continue;
      // NOTE: the same instance can be reached through more than one module's wrapper (re-exports).
      if (seen.has(instance)) continue;
      seen.add(instance);
      const consumer = this.describe(className, meta, weighted, instance);
      const events = this.listenersOf(className, target, instance);
      if (events) consumer.events = events;
      found.push(consumer);
    }
    const keys = new Set<string>();
    for (const c of found) {
      const key = `${c.queue}\u0000${c.name}`;
      if (keys.has(key)) throw new EchoMqError(duplicateConsumer(c.name.split('.')[0], c.queue));
      keys.add(key);
    }
    return found;
  }

  private targetOf(wrapper: InstanceWrapper): Function | undefined {
    const { instance, metatype } = wrapper;
    // NOTE: providers made with useValue/useFactory have no metatype of their own class.
    if (!metatype || wrapper.inject) return instance && typeof instance === 'object' ? instance.constructor : undefined;
    return typeof metatype === 'function' ? metatype : undefined;
  }

  private describe(
    className: string, meta: LaneConsumerMetadata, weighted: boolean, instance: Record<string, unknown>,
  ): LaneConsumerDescriptor {
    try {
      checkName('queue', meta.queue);
    } catch {
      throw new EchoMqError(invalidConsumerQueue(className, meta.queue), { code: 'MISCONFIGURED', argument: 'queue' });
    }
    const handle = instance.handle;
    if (typeof handle !== 'function') throw new EchoMqError(missingHandle(className));
    const int = (option: string, value: unknown, min: number, max: number): number | undefined => {
      if (value === undefined) return undefined;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
        throw new EchoMqError(invalidConsumerOption(className, option, `must be an integer from ${min} to ${max}`, value), { code: 'MISCONFIGURED', argument: option });
      }
      return value;
    };
    // NOTE: an option it does not know (a typo, or one of another library's) would otherwise be
    // ignored without a word: the boot fails naming it.
    for (const option of Object.keys(meta)) {
      if (!CONSUMER_OPTIONS.has(option)) {
        throw new EchoMqError(invalidConsumerOption(className, option, `is not an option (known: ${[...CONSUMER_OPTIONS].filter((o) => o !== 'queue').join(', ')})`,
          (meta as unknown as Record<string, unknown>)[option]), { code: 'MISCONFIGURED', argument: option });
      }
    }
    let backoff: EchoMqBackoff | undefined;
    if (meta.backoff !== undefined) {
      try {
        backoff = Object.freeze(resolveBackoff(meta.backoff, 'backoff'));
      } catch (err) {
        throw new EchoMqError(invalidConsumerOption(className, 'backoff', 'must be { delayMs, factor?, maxDelayMs? } (delayMs and maxDelayMs integers >= 0, factor a number >= 1)',
          meta.backoff), { code: 'MISCONFIGURED', argument: (err as EchoMqError).argument ?? 'backoff', cause: err });
      }
    }
    return {
      name: `${className}.handle`,
      queue: meta.queue,
      concurrency: int('concurrency', meta.concurrency, 1, 10_000) ?? 1,
      leaseMs: int('leaseMs', meta.leaseMs, 100, 2 ** 31 - 1),
      maxAttempts: int('maxAttempts', meta.maxAttempts, 1, 1_000_000),
      keepCompletedMs: int('keepCompletedMs', meta.keepCompletedMs, 0, MAX_KEEP_COMPLETED_MS),
      ...(backoff ? { backoff } : {}),
      weighted,
      handler: createLaneHandler(this.contexts, instance, handle as (job: LaneJob) => unknown),
    };
  }

  /** The class's `@OnLaneEvent` methods bound to the instance; a wrong event or a non-method fails the boot. */
  private listenersOf(className: string, target: Function, instance: Record<string | symbol, unknown>): LaneEventListeners | undefined {
    const uses = this.accessor.getLaneEvents(target);
    if (uses.length === 0) return undefined;
    const listeners: LaneEventListeners = {};
    for (const { event, method } of uses) {
      const member = String(method);
      if (!(LANE_EVENT_NAMES as readonly string[]).includes(event)) {
        throw new EchoMqError(unknownLaneEvent(className, member, event), { code: 'MISCONFIGURED', argument: 'event' });
      }
      const fn = instance[method];
      if (typeof fn !== 'function') throw new EchoMqError(laneEventNotMethod(className, member), { code: 'MISCONFIGURED', argument: 'event' });
      const list = (listeners[event as keyof LaneEventListeners] ??= []);
      list.push({ name: `${className}.${member}`, fn: (...args: unknown[]) => (fn as (...a: unknown[]) => unknown).apply(instance, args) });
    }
    return listeners;
  }
}

import { Inject, Injectable, LoggerService, OnModuleInit } from '@nestjs/common';
import { echoMqLogger } from '../echomq.logger';
import { DiscoveryService } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { ECHOMQ_MODULE_OPTIONS, MAX_KEEP_COMPLETED_MS } from '../echomq.constants';
import {
  duplicateConsumer, invalidConsumerOption, invalidConsumerQueue, missingHandle, scopedConsumer, weightedWithoutConsumer,
} from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { LaneConsumerDescriptor, LaneConsumerMetadata, LaneJob, ResolvedEchoMqOptions } from '../interfaces';
import { checkName } from '../validation/validate';
import { EchoMqMetadataAccessor } from './echomq-metadata.accessor';

/**
 * @internal Finds the `@LaneConsumer` providers at module init and validates them; it starts
 * nothing (the orchestrator does, at application bootstrap).
 */
@Injectable()
export class LaneConsumerExplorer implements OnModuleInit {
  private consumers: readonly LaneConsumerDescriptor[] = [];
  private readonly logger: LoggerService;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly accessor: EchoMqMetadataAccessor,
    @Inject(ECHOMQ_MODULE_OPTIONS) options: ResolvedEchoMqOptions,
  ) {
    this.logger = echoMqLogger(options);
  }

  onModuleInit(): void {
    this.consumers = Object.freeze(this.explore());
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
      found.push(this.describe(className, meta, weighted, instance));
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
    return {
      name: `${className}.handle`,
      queue: meta.queue,
      concurrency: int('concurrency', meta.concurrency, 1, 10_000) ?? 1,
      leaseMs: int('leaseMs', meta.leaseMs, 100, 2 ** 31 - 1),
      maxAttempts: int('maxAttempts', meta.maxAttempts, 1, 1_000_000),
      keepCompletedMs: int('keepCompletedMs', meta.keepCompletedMs, 0, MAX_KEEP_COMPLETED_MS),
      weighted,
      handler: (job: LaneJob) => (handle as (j: LaneJob) => unknown).call(instance, job),
    };
  }
}

import { DynamicModule, FactoryProvider, Module } from '@nestjs/common';
import { LanesService } from '../lanes.service';
import { getQueueToken } from './inject-queue.decorator';
import { createLaneQueue } from './lane-queue.factory';
import { EchoMqQueueRegistry, RegisterQueueAsyncOptions, RegisterQueueOptions } from './queue-defaults';

/**
 * @internal The module `EchoMqModule.registerQueue(...)` returns: it provides and exports one handle per
 * queue. A module of its own, so that registering queues opens no second set of connections (the
 * handles use the root module's LanesService).
 */
@Module({})
export class LaneQueueModule {
  /** Handles of the given queues, each with its defaults. */
  static register(queues: RegisterQueueOptions[]): DynamicModule {
    const providers = queues.map((q): FactoryProvider => ({
      provide: getQueueToken(q.name),
      useFactory: (lanes: LanesService, registry: EchoMqQueueRegistry) => {
        const { name, defaults } = registry.define(q.name, q.defaults, q.fairness);
        return createLaneQueue(lanes, name, defaults);
      },
      inject: [LanesService, EchoMqQueueRegistry],
    }));
    return { module: LaneQueueModule, providers, exports: providers.map((p) => p.provide) };
  }

  /** Handles of the given queues, each with its options from a factory. */
  static registerAsync(queues: RegisterQueueAsyncOptions[]): DynamicModule {
    const providers = queues.map((q): FactoryProvider => ({
      provide: getQueueToken(q.name),
      useFactory: async (lanes: LanesService, registry: EchoMqQueueRegistry, ...args: unknown[]) => {
        const options = await q.useFactory(...args);
        const { name, defaults } = registry.define(q.name, options?.defaults, options?.fairness);
        return createLaneQueue(lanes, name, defaults);
      },
      inject: [LanesService, EchoMqQueueRegistry, ...(q.inject ?? [])],
    }));
    const imports = [...new Set(queues.flatMap((q) => q.imports ?? []))];
    return { module: LaneQueueModule, imports, providers, exports: providers.map((p) => p.provide) };
  }
}

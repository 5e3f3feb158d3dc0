import { DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ECHOMQ_MODULE_OPTIONS, ECHOMQ_REDIS_CLIENT } from './echomq.constants';
import { EchoMqConfigurableModule, ECHOMQ_RAW_OPTIONS } from './echomq.module-definition';
import { resolveEchoMqOptions } from './echomq.options';
import { EchoMqMetadataAccessor } from './explorer/echomq-metadata.accessor';
import { LaneConsumerExplorer } from './explorer/lane-consumer.explorer';
import { QueueEventsExplorer } from './explorer/queue-events.explorer';
import type { EchoMqModuleOptions } from './interfaces';
import { LanesService } from './lanes.service';
import { LaneQueueModule } from './queues/lane-queue.module';
import { EchoMqQueueRegistry, RegisterQueueAsyncOptions, RegisterQueueOptions } from './queues/queue-defaults';
import { EchoMqConnections } from './redis/echomq-connections';
import { ClaimLoopOrchestrator } from './runner/claim-loop.orchestrator';
import { JobObservers } from './runner/job-observers';

/**
 * Fair job lanes on Valkey/Redis. Import once at the root with `EchoMqModule.forRoot({...})` or
 * `forRootAsync({ imports, inject, useFactory })`; it is global and provides `LanesService`, and
 * runs a claim loop for every `@LaneConsumer` provider of the application. `registerQueue` gives
 * feature modules a handle per queue.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    { provide: ECHOMQ_MODULE_OPTIONS, useFactory: (raw: EchoMqModuleOptions) => resolveEchoMqOptions(raw), inject: [ECHOMQ_RAW_OPTIONS] },
    // NOTE: listed before the providers that talk to the server: Nest calls a module's onModuleInit
    // hooks in this order (and awaits them together), so a consumer the explorer refuses drops the
    // connections before LanesService sends its start-up commands (no job-id node lease is taken).
    EchoMqMetadataAccessor,
    LaneConsumerExplorer,
    EchoMqConnections,
    { provide: ECHOMQ_REDIS_CLIENT, useFactory: (c: EchoMqConnections) => c.client, inject: [EchoMqConnections] },
    LanesService,
    ClaimLoopOrchestrator,
    JobObservers,
    EchoMqQueueRegistry,
    QueueEventsExplorer,
  ],
  // NOTE: beyond LanesService, what the optional subpaths (metrics, health) inject; none of it is
  // exported by the package's main entry.
  exports: [LanesService, ClaimLoopOrchestrator, JobObservers, ECHOMQ_REDIS_CLIENT, EchoMqQueueRegistry],
})
export class EchoMqModule extends EchoMqConfigurableModule {
  /**
   * Provides a handle (`LaneQueue`, injected with `@InjectQueue(name)`) for each queue given, in the
   * module that imports this; `defaults` apply to the handle's calls and to the queue's consumers.
   * Needs `EchoMqModule.forRoot()` (or `forRootAsync`) at the root.
   * @param queues one or more `{ name, defaults? }`
   */
  static registerQueue(...queues: RegisterQueueOptions[]): DynamicModule {
    return LaneQueueModule.register(queues);
  }

  /**
   * As {@link registerQueue}, each queue's defaults from a factory: `{ name, imports?, inject?, useFactory }`.
   * @param queues one or more queues
   */
  static registerQueueAsync(...queues: RegisterQueueAsyncOptions[]): DynamicModule {
    return LaneQueueModule.registerAsync(queues);
  }
}

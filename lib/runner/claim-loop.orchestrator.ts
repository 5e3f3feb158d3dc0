import { BeforeApplicationShutdown, Inject, Injectable, LoggerService, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { echoMqLogger } from '../echomq.logger';
import { ECHOMQ_MODULE_OPTIONS } from '../echomq.constants';
import { LaneConsumerExplorer } from '../explorer/lane-consumer.explorer';
import type { LaneConsumerDescriptor, ResolvedEchoMqOptions } from '../interfaces';
import type { LaneQueueDefaults } from '../queues/queue-defaults';
import { LanesService } from '../lanes.service';
import { EchoMqQueueRegistry } from '../queues/queue-defaults';
import { EchoMqConnections } from '../redis/echomq-connections';
import { dropRedisClient } from '../redis/redis-connection';
import { ClaimLoop } from './claim-loop';
import { JobObservers } from './job-observers';
import { ShardWaker } from './shard-waker';

/**
 * @internal Starts one claim loop per discovered consumer at application bootstrap and stops them
 * all before the application shuts down (the connections close after, in their own hook).
 */
@Injectable()
export class ClaimLoopOrchestrator implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly loops: { loop: ClaimLoop; name: string; queue: string }[] = [];
  /** Per queue, the idle wait on its shards that the process's loops share (used once it is sharded). */
  private readonly wakers = new Map<string, ShardWaker>();
  private readonly logger: LoggerService;

  constructor(
    private readonly explorer: LaneConsumerExplorer,
    private readonly lanes: LanesService,
    private readonly connections: EchoMqConnections,
    @Inject(ECHOMQ_MODULE_OPTIONS) private readonly options: ResolvedEchoMqOptions,
    private readonly observers: JobObservers,
    @Optional() private readonly registry?: EchoMqQueueRegistry,
  ) {
    this.logger = echoMqLogger(options);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.loops.length > 0) return;
    // NOTE: before the loops claim, so a queue from before 0.2 is counted before anything moves in it.
    await this.lanes.adoptLanes(this.queues());
    // NOTE: a queue registered with a fairness has it before any consumer of the app claims (while
    // the server answers: else the boot goes on, as it does past the node lease and adoptLanes).
    await this.lanes.bootFairness([...(this.registry?.fairnessOfQueues() ?? [])]);
    if (this.loops.length > 0) return;
    for (const found of this.explorer.getConsumers()) {
      const consumer = withQueueDefaults(found, this.registry?.defaultsOf(found.queue) ?? {});
      const name = `echomq:${consumer.queue}:wait`;
      const blocking = this.connections.open(name);
      const loop = new ClaimLoop(consumer, {
        lanes: this.lanes, blocking, options: this.options, logger: this.logger, observers: this.observers, shardWaker: this.wakerOf(consumer.queue),
        // NOTE: dropped, not quit: a QUIT would queue behind the BRPOP in flight.
        reopenBlocking: (stale) => {
          dropRedisClient(stale);
          void this.connections.close(stale);
          return this.connections.open(name);
        },
      });
      loop.start();
      this.loops.push({ loop, name: consumer.name, queue: consumer.queue });
      this.logger.log(`${consumer.name} -> ${consumer.queue} (concurrency ${consumer.concurrency}${consumer.weighted ? ', weighted' : ''})`);
    }
  }

  /** The shared idle wait of a queue's shards; it opens a connection per shard only when a loop first waits on them. */
  private wakerOf(queue: string): ShardWaker {
    let waker = this.wakers.get(queue);
    if (waker === undefined) {
      // NOTE: dropped, not quit: a QUIT would queue behind the BRPOP in flight.
      waker = new ShardWaker((i) => this.connections.open(`echomq:${queue}:wait:${i}`), (c) => {
        dropRedisClient(c);
        void this.connections.close(c);
      });
      this.wakers.set(queue, waker);
    }
    return waker;
  }

  /** The queues of the application's consumers, each once. */
  queues(): string[] {
    return [...new Set(this.explorer.getConsumers().map((c) => c.queue))];
  }

  /** Each running loop's health: whether, and since when, its claiming has been failing. */
  loopHealth(): ClaimLoop['health'][] {
    return this.loops.map(({ loop }) => loop.health);
  }

  async beforeApplicationShutdown(): Promise<void> {
    // NOTE: the job-id node number goes back beside the loops' stop, not after it: Nest 12 runs this
    // hook before LanesService's (a level of the module graph at a time; Nest 11 ran them together),
    // which then finds it given back.
    const released = this.lanes.beforeApplicationShutdown();
    const loops = this.loops.splice(0);
    await Promise.all(loops.map(async ({ loop, name, queue }) => {
      await loop.stop(this.options.shutdownTimeoutMs);
      this.logger.log(`${name} -> ${queue} stopped`);
    }));
    for (const waker of this.wakers.values()) waker.close();
    this.wakers.clear();
    await released;
  }
}

/** A consumer's own options, else its queue's registered defaults (else, in the loop, the module's). */
function withQueueDefaults(c: LaneConsumerDescriptor, d: LaneQueueDefaults): LaneConsumerDescriptor {
  return {
    ...c,
    leaseMs: c.leaseMs ?? d.leaseMs,
    maxAttempts: c.maxAttempts ?? d.maxAttempts,
    keepCompletedMs: c.keepCompletedMs ?? d.keepCompletedMs,
    backoff: c.backoff ?? d.backoff,
  };
}

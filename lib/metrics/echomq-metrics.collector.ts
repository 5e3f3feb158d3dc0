import { Inject, Injectable, LoggerService, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, register as globalRegistry } from 'prom-client';
import { echoMqLogger } from '../echomq.logger';
import { LanesService } from '../lanes.service';
import { ClaimLoopOrchestrator } from '../runner/claim-loop.orchestrator';
import { JobObservers } from '../runner/job-observers';
import { ECHOMQ_METRICS_OPTIONS, EchoMqMetricsOptions } from './echomq-metrics.options';
import type { QueueSnapshot } from './queue-snapshot';
import { ServedTally } from './served-tally';

const TOTAL_EVENTS = ['submitted', 'completed', 'retried', 'dead', 'reaped', 'cancelled'] as const;
const JOB_STATES = ['pending', 'scheduled', 'active', 'dead'] as const;
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800];
const HANDLER_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const ERROR_LOG_EVERY_MS = 60_000;
/**
 * How long a scrape waits for a queue's reading before it leaves the queue out (callTimeoutMs when
 * shorter): without a bound, a server that does not answer would hold /metrics, and the app's other
 * metrics with it, for the whole outage (Prometheus's own scrape timeout is 10 s by default).
 */
export const METRICS_READ_MS = 5_000;

/**
 * @internal The EchoMQ metrics in a prom-client registry. The queue's totals and gauges are read
 * from the server when the registry is scraped (one `stats`, `topLanes`, `topTenants`, `oldestLanes`
 * and `shares` call per queue, each bounded by the top counts and shared by every metric of that
 * scrape), so every process reports the same numbers and adding pods never double-counts; the
 * histograms and `echomq_lane_served_total` are this process's own, fed by its claim loops.
 */
@Injectable()
export class EchoMqMetricsCollector implements OnModuleInit, OnModuleDestroy {
  private readonly registry: Registry;
  private readonly topCount: number;
  private readonly topTenantCount: number;
  private readonly logger: LoggerService;
  private metrics: { name: string }[] = [];
  private removeObserver?: () => void;
  private inFlight?: Promise<QueueSnapshot[]>;
  private lastErrorLog = 0;
  private readonly served: ServedTally;
  /** Each queue's reading still unanswered: a later scrape waits for it rather than queue another behind it. */
  private readonly reading = new Map<string, Promise<Omit<QueueSnapshot, 'served'>>>();

  constructor(
    @Inject(ECHOMQ_METRICS_OPTIONS) private readonly options: EchoMqMetricsOptions,
    private readonly lanes: LanesService,
    private readonly loops: ClaimLoopOrchestrator,
    private readonly observers: JobObservers,
  ) {
    this.registry = options.registry ?? globalRegistry;
    this.topCount = options.topLanes ?? 10;
    this.topTenantCount = options.topTenants ?? 10;
    this.logger = echoMqLogger(lanes.settings);
    this.served = new ServedTally(this.topCount);
  }

  onModuleInit(): void {
    const registers = [this.registry];
    /** A metric read at each scrape from its snapshots: reset (a lane that left the top goes), then `fill` per queue. */
    const fromSnapshots = <M extends { reset(): void }>(fill: (metric: M, s: QueueSnapshot) => void) => {
      const read = () => this.read();
      return async function collect(this: M): Promise<void> {
        const snaps = await read();
        this.reset();
        for (const s of snaps) fill(this, s);
      };
    };
    const jobsTotal = new Counter({
      name: 'echomq_jobs_total',
      help: 'Jobs of the queue by event since the queue began (the server\'s totals, the same from every process).',
      labelNames: ['queue', 'event'], registers,
      collect: fromSnapshots((metric, s) => {
        for (const e of TOTAL_EVENTS) metric.inc({ queue: s.queue, event: e }, s.stats.totals[e]);
      }),
    });
    const jobs = new Gauge({
      name: 'echomq_jobs',
      help: 'Jobs of the queue in each state now.',
      labelNames: ['queue', 'state'], registers,
      collect: fromSnapshots((metric, s) => {
        for (const st of JOB_STATES) metric.set({ queue: s.queue, state: st }, s.stats[st]);
      }),
    });
    const lanes = new Gauge({
      name: 'echomq_lanes',
      help: 'Lanes of the queue: all with work or settings (total), serviceable now (ring), paused.',
      labelNames: ['queue', 'state'], registers,
      collect: fromSnapshots((metric, s) => {
        metric.set({ queue: s.queue, state: 'total' }, s.stats.lanes);
        metric.set({ queue: s.queue, state: 'ring' }, s.stats.ringLength);
        metric.set({ queue: s.queue, state: 'paused' }, s.stats.pausedLanes);
      }),
    });
    const shardRing = new Gauge({
      name: 'echomq_shard_ring_length',
      help: 'Serviceable lanes in each shard\'s ring (shard 0 only, on a queue that is not sharded): claims weigh the shards by it, so a shard far above the others is where a sharded queue\'s load sits.',
      labelNames: ['queue', 'shard'], registers,
      collect: fromSnapshots((metric, s) => {
        s.stats.shardRingLengths.forEach((n, i) => metric.set({ queue: s.queue, shard: String(i) }, n));
      }),
    });
    const lanePending = new Gauge({
      name: 'echomq_lane_pending',
      help: 'Pending jobs of the queue\'s lanes with the most pending (only those: the cardinality stays bounded).',
      labelNames: ['queue', 'lane'], registers,
      collect: fromSnapshots((metric, s) => {
        for (const l of s.top) metric.set({ queue: s.queue, lane: l.group }, l.pending);
      }),
    });
    const tenantPending = new Gauge({
      name: 'echomq_tenant_pending',
      help: 'Pending jobs of the queue\'s tenants with the most pending, summed over their lanes (only those: the cardinality stays bounded).',
      labelNames: ['queue', 'tenant'], registers,
      collect: fromSnapshots((metric, s) => {
        for (const t of s.topTenants) metric.set({ queue: s.queue, tenant: t.tenant }, t.pending);
      }),
    });
    const oldestWait = new Gauge({
      name: 'echomq_oldest_wait_seconds',
      help: 'How long the queue\'s longest-waiting lane head has been ready to serve, by the server clock (paused lanes too; a delay or a backoff is not wait); 0 while no lane holds a pending job. The starvation signal.',
      labelNames: ['queue'], registers,
      collect: fromSnapshots((metric, s) => {
        metric.set({ queue: s.queue }, (s.stats.oldestWaitMs ?? 0) / 1000);
      }),
    });
    const laneWait = new Gauge({
      name: 'echomq_lane_wait_seconds',
      help: 'How long the lane\'s head job has been ready to serve, for the queue\'s lanes with the oldest heads (only those: the cardinality stays bounded).',
      labelNames: ['queue', 'lane'], registers,
      collect: fromSnapshots((metric, s) => {
        for (const l of s.oldest) metric.set({ queue: s.queue, lane: l.group }, l.headWaitMs / 1000);
      }),
    });
    const jain = new Gauge({
      name: 'echomq_fairness_jain',
      help: 'Jain\'s index of served ÷ weight (work ÷ weight in cost or time fairness) over the last 60 s of the server clock, among the backlogged lanes served most or with the oldest heads: 1 when each got its weight\'s share, 1/n when one got everything; no sample while fewer than two such lanes.',
      labelNames: ['queue'], registers,
      collect: fromSnapshots((metric, s) => {
        if (s.shares.jain !== null) metric.set({ queue: s.queue }, s.shares.jain);
      }),
    });
    const laneServed = new Counter({
      name: 'echomq_lane_served_total',
      help: 'Jobs of the lane claimed by this process\'s consumers (this process\'s count, like the histograms: sum it over processes), for the queue\'s lanes served most in the last 60 s of the server clock, then, while fewer, those reported before (only those: the cardinality stays bounded); a lane that leaves the report starts again when it returns.',
      labelNames: ['queue', 'lane'], registers,
      collect: fromSnapshots((metric, s) => {
        for (const [lane, n] of s.served) metric.inc({ queue: s.queue, lane }, n);
      }),
    });
    const wait = new Histogram({
      name: 'echomq_wait_seconds',
      help: 'Submitted or due → claimed, by the server clock, of the jobs this process runs (a retry, a reap or a hand-back: from when it was back in its lane).',
      labelNames: ['queue'], buckets: WAIT_BUCKETS, registers,
    });
    const handler = new Histogram({
      name: 'echomq_handler_seconds',
      help: 'Handler run time in this process, by outcome (completed: returned, failed: threw).',
      labelNames: ['queue', 'outcome'], buckets: HANDLER_BUCKETS, registers,
    });
    this.metrics = [
      jobsTotal, jobs, lanes, shardRing, lanePending, tenantPending, oldestWait, laneWait, jain, laneServed, wait, handler,
    ] as unknown as { name: string }[];
    this.removeObserver = this.observers.add({
      started: (job, waitMs) => {
        this.served.claimed(job.queue, job.group);
        if (waitMs !== undefined) wait.observe({ queue: job.queue }, waitMs / 1000);
      },
      handled: (job, outcome, ms) => handler.observe({ queue: job.queue, outcome }, ms / 1000),
    });
  }

  onModuleDestroy(): void {
    this.removeObserver?.();
    // NOTE: a registry outlives the app (the global one does); a new app registers afresh.
    for (const m of this.metrics.splice(0)) this.registry.removeSingleMetric(m.name);
  }

  /** The queues reported: the option's, else those of the application's consumers. */
  queues(): string[] {
    return this.options.queues ?? this.loops.queues();
  }

  /** The queue's reading in flight, or a new one: one stats, topLanes, topTenants, oldestLanes and shares call. */
  private readingOf(queue: string): Promise<Omit<QueueSnapshot, 'served'>> {
    let pending = this.reading.get(queue);
    if (pending === undefined) {
      const top = this.topCount;
      pending = Promise.all([
        this.lanes.stats(queue), top > 0 ? this.lanes.topLanes(queue, top) : Promise.resolve([]),
        this.topTenantCount > 0 ? this.lanes.topTenants(queue, this.topTenantCount) : Promise.resolve([]),
        top > 0 ? this.lanes.oldestLanes(queue, top) : Promise.resolve([]),
        // The Jain index is a queue's figure, so it is read with shares' default count when no lane is reported.
        this.lanes.shares(queue, top > 0 ? { count: top } : {}),
      ]).then(([stats, topLanes, topTenants, oldest, shares]) => ({ queue, stats, top: topLanes, topTenants, oldest, shares }))
        .finally(() => this.reading.delete(queue));
      // NOTE: a reading the scrape gave up on may still fail later; that is logged by the scrape that waits for it, if any.
      pending.catch(() => undefined);
      this.reading.set(queue, pending);
    }
    return pending;
  }

  /**
   * Reads every queue once per scrape: the collect() calls of one scrape start together and share
   * the reading in flight. A queue whose reading fails is left out of that scrape (and logged).
   */
  read(): Promise<QueueSnapshot[]> {
    this.inFlight ??= this.readAll().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async readAll(): Promise<QueueSnapshot[]> {
    const boundMs = Math.min(METRICS_READ_MS, this.lanes.settings.callTimeoutMs ?? METRICS_READ_MS);
    const read = await Promise.all(this.queues().map(async (queue): Promise<Omit<QueueSnapshot, 'served'> | undefined> => {
      let timer: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([
          this.readingOf(queue),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer from the server within ${boundMs} ms`)), boundMs);
          }),
        ]);
      } catch (err) {
        const now = Date.now();
        if (now - this.lastErrorLog >= ERROR_LOG_EVERY_MS) {
          this.lastErrorLog = now;
          this.logger.warn(`Metrics: could not read queue "${queue}" (${(err as Error).message}); it is left out of this scrape.`);
        }
        return undefined;
      } finally {
        clearTimeout(timer);
      }
    }));
    // Once per scrape, after the reads: the lanes the server saw served most become the ones reported.
    const out: QueueSnapshot[] = [];
    for (const s of read) if (s) out.push({ ...s, served: this.served.settle(s.queue, s.shares.lanes.map((l) => l.group)) });
    this.served.endScrape();
    return out;
  }
}

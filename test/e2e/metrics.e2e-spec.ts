import { INestApplication, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { Gauge, Registry, register as globalRegistry } from 'prom-client';
import request from 'supertest';
import { EchoMqModule, EchoMqModuleOptions, LaneConsumer, LaneJob, LanesService } from '../../lib';
import { EchoMqMetricsModule, EchoMqMetricsOptions } from '../../lib/metrics';
import { METRICS_READ_MS } from '../../lib/metrics/echomq-metrics.collector';
import { ServedTally } from '../../lib/metrics/served-tally';
import { CapturingLogger, nestFixture, until } from '../support/nest';
import { PartitionProxy } from '../support/partition-proxy';

const QUEUE = 'metrics-q';

@LaneConsumer(QUEUE, { concurrency: 4, maxAttempts: 1 })
@Injectable()
class MeteredWorker {
  async handle(job: LaneJob<{ fail?: boolean }>): Promise<void> {
    if (job.payload.fail) throw new Error('metered failure');
  }
}

const WAIT_QUEUE = 'metrics-wait';

@LaneConsumer(WAIT_QUEUE, { concurrency: 2, maxAttempts: 2 })
@Injectable()
class WaitWorker {
  async handle(job: LaneJob<{ retry?: boolean }>): Promise<void> {
    if (job.payload.retry && job.attempt === 1) throw new Error('once');
  }
}

const FAIR_QUEUE = 'metrics-fair';

@LaneConsumer(FAIR_QUEUE, { concurrency: 4, maxAttempts: 1 })
@Injectable()
class FairWorker {
  async handle(): Promise<void> {}
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How many samples of `name` a Prometheus text exposition holds for `queue`. */
function series(text: string, name: string, queue: string): number {
  return text.split('\n').filter((line) => line.startsWith(name + '{') && line.includes(`queue="${queue}"`)).length;
}

/** The value of one sample of a Prometheus text exposition, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{')) continue;
    const inner = line.slice(name.length + 1, line.indexOf('}'));
    const have = inner.split(',');
    if (have.length === want.length && want.every((w) => have.includes(w))) return Number(line.slice(line.indexOf('}') + 1));
  }
  return undefined;
}

describe('@echomq/nestjs/metrics', () => {
  const fixture = nestFixture();

  async function boot(metrics: EchoMqMetricsOptions, extraImports: unknown[] = [], providers: unknown[] = [MeteredWorker], options: EchoMqModuleOptions = {}): Promise<INestApplication> {
    const logger = new CapturingLogger();
    const mod = await Test.createTestingModule({
      imports: [EchoMqModule.forRoot({ connection: fixture.server.url, logger, ...options }), EchoMqMetricsModule.forRoot(metrics), ...(extraImports as never[])],
      providers: providers as never[],
    }).compile();
    const app = mod.createNestApplication({ logger });
    await app.init();
    fixture.apps.push(app);
    return app;
  }

  it('reads the queue\'s totals and gauges from the server and this process\'s histograms, with the contract\'s names, types and labels', async () => {
    const registry = new Registry();
    const app = await boot({ registry, topLanes: 2, topTenants: 2 });
    const lanes = app.get(LanesService);
    await lanes.submitMany(QUEUE, [
      ...Array.from({ length: 6 }, () => ({ group: 'ok', payload: {} })),
      { group: 'bad', payload: { fail: true } },
    ]);
    await until(async () => (await lanes.stats(QUEUE)).totals.dead === 1 && (await lanes.stats(QUEUE)).totals.completed === 6, 10_000, 'the jobs to settle');
    // Backlog held in paused lanes: three lanes of different depths, only the top two reported.
    for (const [group, n] of [['deep', 5], ['mid', 3], ['shallow', 1]] as const) {
      await lanes.pause(QUEUE, group);
      await lanes.submitMany(QUEUE, Array.from({ length: n }, () => ({ group, payload: {} })));
    }
    // Tenants' backlog, summed over their lanes, held by tenant pauses: only the top two reported.
    for (const [tenant, groups, n] of [['t-big', ['b1', 'b2', 'b3'], 2], ['t-mid', ['m1', 'm2'], 2], ['t-small', ['s1'], 1]] as const) {
      await lanes.pauseTenant(QUEUE, tenant);
      for (const group of groups) await lanes.submitMany(QUEUE, Array.from({ length: n }, () => ({ group, payload: {}, opts: { tenant } })));
    }
    const text = await registry.metrics();

    for (const [name, type] of [
      ['echomq_jobs_total', 'counter'], ['echomq_jobs', 'gauge'], ['echomq_lanes', 'gauge'], ['echomq_shard_ring_length', 'gauge'], ['echomq_lane_pending', 'gauge'],
      ['echomq_tenant_pending', 'gauge'], ['echomq_oldest_wait_seconds', 'gauge'], ['echomq_lane_wait_seconds', 'gauge'],
      ['echomq_fairness_jain', 'gauge'], ['echomq_lane_served_total', 'counter'],
      ['echomq_wait_seconds', 'histogram'], ['echomq_handler_seconds', 'histogram'],
    ]) expect(text).toContain(`# TYPE ${name} ${type}\n`);

    const q = { queue: QUEUE };
    expect(sample(text, 'echomq_tenant_pending', { ...q, tenant: 't-big' })).toBe(6);
    expect(sample(text, 'echomq_tenant_pending', { ...q, tenant: 't-mid' })).toBe(4);
    expect(sample(text, 'echomq_tenant_pending', { ...q, tenant: 't-small' })).toBeUndefined();
    expect(sample(text, 'echomq_jobs_total', { ...q, event: 'submitted' })).toBe(27);
    expect(sample(text, 'echomq_jobs_total', { ...q, event: 'completed' })).toBe(6);
    expect(sample(text, 'echomq_jobs_total', { ...q, event: 'dead' })).toBe(1);
    expect(sample(text, 'echomq_jobs_total', { ...q, event: 'retried' })).toBe(0);
    expect(sample(text, 'echomq_jobs_total', { ...q, event: 'reaped' })).toBe(0);
    expect(sample(text, 'echomq_jobs', { ...q, state: 'pending' })).toBe(20);
    expect(sample(text, 'echomq_jobs', { ...q, state: 'active' })).toBe(0);
    expect(sample(text, 'echomq_jobs', { ...q, state: 'scheduled' })).toBe(0);
    expect(sample(text, 'echomq_jobs', { ...q, state: 'dead' })).toBe(1);
    expect(sample(text, 'echomq_lanes', { ...q, state: 'paused' })).toBe(3);
    expect(sample(text, 'echomq_lanes', { ...q, state: 'ring' })).toBe(0);
    expect(sample(text, 'echomq_shard_ring_length', { ...q, shard: '0' })).toBe(0);
    expect(sample(text, 'echomq_lane_pending', { ...q, lane: 'deep' })).toBe(5);
    expect(sample(text, 'echomq_lane_pending', { ...q, lane: 'mid' })).toBe(3);
    expect(sample(text, 'echomq_lane_pending', { ...q, lane: 'shallow' })).toBeUndefined();
    expect(sample(text, 'echomq_handler_seconds_count', { ...q, outcome: 'completed' })).toBe(6);
    expect(sample(text, 'echomq_handler_seconds_count', { ...q, outcome: 'failed' })).toBe(1);
    expect(sample(text, 'echomq_wait_seconds_count', q)).toBe(7);
  });

  it('shows fairness: the oldest head\'s wait, the lanes with the oldest heads, the Jain index and the lanes served most, topLanes of each', async () => {
    const registry = new Registry();
    const IDLE = 'metrics-idle';
    const app = await boot({ registry, topLanes: 2, queues: [FAIR_QUEUE, IDLE] }, [], [FairWorker]);
    const lanes = app.get(LanesService);
    // Served: a flood lane and two light ones, all of it run by this app's consumer.
    await lanes.submitMany(FAIR_QUEUE, [
      ...Array.from({ length: 24 }, () => ({ group: 'flood', payload: {} })),
      ...Array.from({ length: 8 }, () => ({ group: 'light', payload: {} })),
      { group: 'tiny', payload: {} },
    ]);
    await until(async () => (await lanes.stats(FAIR_QUEUE)).totals.completed === 33, 10_000, '33 completions');
    // Backlogged and held: a lane never served, then flood and light, each paused with one pending job
    // (oldest head first), left to wait.
    for (const group of ['stuck', 'flood', 'light']) {
      await lanes.pause(FAIR_QUEUE, group);
      await lanes.submit(FAIR_QUEUE, group, {});
      await sleep(100);
    }
    await sleep(1_500);
    const text = await registry.metrics();
    const shares = await lanes.shares(FAIR_QUEUE, { count: 2 });
    const q = { queue: FAIR_QUEUE };

    // The starvation signal: the never-served lane's head has waited at least the 1.7 s it was held.
    const oldest = sample(text, 'echomq_oldest_wait_seconds', q)!;
    expect(oldest).toBeGreaterThanOrEqual(1.7);
    expect(oldest).toBeLessThan(10);
    const stuck = sample(text, 'echomq_lane_wait_seconds', { ...q, lane: 'stuck' })!;
    expect(stuck).toBeGreaterThanOrEqual(1.7);
    // The same head, read by two scripts of one scrape a moment apart.
    expect(Math.abs(stuck - oldest)).toBeLessThan(0.1);
    const flood = sample(text, 'echomq_lane_wait_seconds', { ...q, lane: 'flood' })!;
    expect(flood).toBeGreaterThanOrEqual(1.5);
    expect(flood).toBeLessThan(stuck);
    expect(sample(text, 'echomq_lane_wait_seconds', { ...q, lane: 'light' })).toBeUndefined();
    expect(series(text, 'echomq_lane_wait_seconds', FAIR_QUEUE)).toBe(2);

    // Unfair in the window: flood had 24 claims, light 8, stuck none, all backlogged now.
    const jain = sample(text, 'echomq_fairness_jain', q)!;
    expect(jain).toBeGreaterThan(0);
    expect(jain).toBeLessThan(1);
    expect(shares.jain).not.toBeNull();
    expect(jain).toBeCloseTo(shares.jain!, 6);

    // The two lanes served most, with every claim of this process's consumer; tiny is left out.
    expect(sample(text, 'echomq_lane_served_total', { ...q, lane: 'flood' })).toBe(24);
    expect(sample(text, 'echomq_lane_served_total', { ...q, lane: 'light' })).toBe(8);
    expect(sample(text, 'echomq_lane_served_total', { ...q, lane: 'tiny' })).toBeUndefined();
    expect(series(text, 'echomq_lane_served_total', FAIR_QUEUE)).toBe(2);

    // A queue where nothing waits: no wait (0, not absent, so an alert's comparison holds), no index, no lanes.
    expect(sample(text, 'echomq_oldest_wait_seconds', { queue: IDLE })).toBe(0);
    expect(sample(text, 'echomq_fairness_jain', { queue: IDLE })).toBeUndefined();
    expect(series(text, 'echomq_lane_wait_seconds', IDLE)).toBe(0);
    expect(series(text, 'echomq_lane_served_total', IDLE)).toBe(0);

    // A counter: it grows by what is served between scrapes, and the lanes' heads leave the wait gauge once served.
    await lanes.resume(FAIR_QUEUE, 'light');
    await lanes.resume(FAIR_QUEUE, 'stuck');
    await until(async () => (await lanes.stats(FAIR_QUEUE)).totals.completed === 35, 10_000, '35 completions');
    const after = await registry.metrics();
    expect(sample(after, 'echomq_lane_served_total', { ...q, lane: 'flood' })).toBe(24);
    expect(sample(after, 'echomq_lane_served_total', { ...q, lane: 'light' })).toBe(9);
    expect(sample(after, 'echomq_lane_wait_seconds', { ...q, lane: 'stuck' })).toBeUndefined();
    expect(sample(after, 'echomq_lane_wait_seconds', { ...q, lane: 'flood' })).toBeGreaterThanOrEqual(1.5);
    // Only flood is backlogged now: no index of one lane, and the gauge's sample is gone rather than stale.
    expect(sample(after, 'echomq_fairness_jain', q)).toBeUndefined();
    expect(series(after, 'echomq_lane_served_total', FAIR_QUEUE)).toBe(2);
  });

  it('measures the wait from when a job is due: a delayed submit\'s delay and a retry\'s backoff are not wait, and retries count', async () => {
    const registry = new Registry();
    const app = await boot({ registry, queues: [WAIT_QUEUE] }, [], [WaitWorker], { backoff: { delayMs: 1_000, factor: 1, maxDelayMs: 1_000 } });
    const lanes = app.get(LanesService);
    await lanes.submit(WAIT_QUEUE, 'later', {}, { delayMs: 1_500 });
    await lanes.submit(WAIT_QUEUE, 'again', { retry: true });
    await until(async () => (await lanes.stats(WAIT_QUEUE)).totals.completed === 2, 10_000, 'both jobs to complete');
    const text = await registry.metrics();
    const q = { queue: WAIT_QUEUE };
    // The delayed job once, the retried one twice: each from when it was due, so well under the 1.5 s
    // delay and the 1 s backoff (an idle consumer wakes for a due time by itself).
    expect(sample(text, 'echomq_wait_seconds_count', q)).toBe(3);
    expect(sample(text, 'echomq_wait_seconds_sum', q)).toBeLessThan(0.75);
  });

  it('reports the same totals from every process, so two pods never double-count', async () => {
    const [ra, rb] = [new Registry(), new Registry()];
    const a = await boot({ registry: ra });
    await boot({ registry: rb });
    const lanes = a.get(LanesService);
    await lanes.submitMany(QUEUE, Array.from({ length: 40 }, (_, i) => ({ group: `t${i % 4}`, payload: {} })));
    await until(async () => (await lanes.stats(QUEUE)).totals.completed === 40, 10_000, '40 completions');
    const [ta, tb] = await Promise.all([ra.metrics(), rb.metrics()]);
    const completed = (t: string) => sample(t, 'echomq_jobs_total', { queue: QUEUE, event: 'completed' });
    expect(completed(ta)).toBe(40);
    expect(completed(tb)).toBe(40);
    // The histograms are each process's own: together they saw every job once.
    const handled = (t: string) => sample(t, 'echomq_handler_seconds_count', { queue: QUEUE, outcome: 'completed' }) ?? 0;
    expect(handled(ta) + handled(tb)).toBe(40);
  });

  it('sits in the registry that @willsoto/nestjs-prometheus serves, and leaves it when the app closes', async () => {
    try {
      const app = await boot({ queues: [QUEUE, 'other-q'] }, [PrometheusModule.register({ defaultMetrics: { enabled: false } })]);
      await app.get(LanesService).submit(QUEUE, 'g', {});
      const res = await request(app.getHttpServer()).get('/metrics').expect(200);
      expect(sample(res.text, 'echomq_jobs_total', { queue: QUEUE, event: 'submitted' })).toBe(1);
      expect(sample(res.text, 'echomq_jobs_total', { queue: 'other-q', event: 'submitted' })).toBe(0);
      await app.close();
      fixture.apps.splice(fixture.apps.indexOf(app), 1);
      expect(globalRegistry.getSingleMetric('echomq_jobs_total')).toBeUndefined();
    } finally {
      globalRegistry.clear();
    }
  });

  it('refuses a bad topLanes, and queues that are not an array of queue names', () => {
    expect(() => EchoMqMetricsModule.forRoot({ topLanes: 1.5 })).toThrow('Invalid argument "topLanes": must be an integer from 0 to 1,000 (got 1.5).');
    expect(() => EchoMqMetricsModule.forRoot({ queues: 'cm' as never })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', argument: 'queues' }));
    expect(() => EchoMqMetricsModule.forRoot({ queues: ['ok', 'a{b}'] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', argument: 'queues[1]' }));
    expect(() => EchoMqMetricsModule.forRoot({ queues: [42 as never] })).toThrow(expect.objectContaining({ argument: 'queues[0]' }));
  });

  it('leaves out, and logs, a queue the server does not answer for within METRICS_READ_MS, without callTimeoutMs; the app\'s own metrics still answer', async () => {
    const proxy = await PartitionProxy.start(fixture.server.port);
    try {
      const registry = new Registry();
      const own = new Gauge({ name: 'app_own_gauge', help: 'the app\'s own', registers: [registry] });
      own.set(7);
      const logger = new CapturingLogger();
      const mod = await Test.createTestingModule({
        imports: [EchoMqModule.forRoot({ connection: proxy.url, logger, shutdownTimeoutMs: 500 }), EchoMqMetricsModule.forRoot({ registry, queues: ['metrics-dark'] })],
      }).compile();
      const app = mod.createNestApplication({ logger });
      await app.init();
      fixture.apps.push(app);
      await app.get(LanesService).submit('metrics-dark', 'g', {});
      expect(sample(await registry.metrics(), 'echomq_jobs', { queue: 'metrics-dark', state: 'pending' })).toBe(1);
      proxy.blackhole();
      const t0 = Date.now();
      const text = await registry.metrics();
      const ms = Date.now() - t0;
      expect(ms).toBeGreaterThanOrEqual(METRICS_READ_MS - 50);
      expect(ms).toBeLessThan(METRICS_READ_MS + 2_000);
      expect(series(text, 'echomq_jobs', 'metrics-dark')).toBe(0);
      expect(text).toContain('app_own_gauge 7');
      expect(logger.text('warn')).toContain('could not read queue "metrics-dark"');
      // A second scrape while the first reading is still unanswered waits for it rather than queue another.
      const again = Date.now();
      await registry.metrics();
      expect(Date.now() - again).toBeLessThan(METRICS_READ_MS + 2_000);
      proxy.heal();
      await until(async () => sample(await registry.metrics(), 'echomq_jobs', { queue: 'metrics-dark', state: 'pending' }) === 1, 10_000, 'the queue back in the scrape');
      await app.close();
    } finally {
      await proxy.stop();
    }
  }, 30_000);
});

describe('echomq_lane_served_total\'s tally', () => {
  const claim = (t: ServedTally, lane: string, n: number): void => {
    for (let i = 0; i < n; i++) t.claimed('q', lane);
  };
  const asObject = (m: ReadonlyMap<string, number>): Record<string, number> => Object.fromEntries(m);

  it('never falls while a lane is reported, though the server\'s window slides and empties', () => {
    const t = new ServedTally(2);
    claim(t, 'a', 5);
    claim(t, 'b', 3);
    claim(t, 'c', 1);
    expect(asObject(t.settle('q', ['a', 'b', 'c']))).toEqual({ a: 5, b: 3 });
    t.endScrape();
    claim(t, 'b', 4);
    expect(asObject(t.settle('q', ['b', 'a']))).toEqual({ b: 7, a: 5 });
    t.endScrape();
    // The window empties on a quiet queue: the series stay, at their counts.
    expect(asObject(t.settle('q', []))).toEqual({ b: 7, a: 5 });
    t.endScrape();
    // A new lane served most takes a place: the one reported last gives it up; the new one counts
    // its claims since the last scrape (c's one claim before that is not kept).
    claim(t, 'c', 6);
    expect(asObject(t.settle('q', ['c']))).toEqual({ c: 6, b: 7 });
    t.endScrape();
  });

  it('keeps no lane beyond its bounds: topLanes reported, and a capped count of unreported ones between scrapes', () => {
    const t = new ServedTally(1, 3);
    for (const lane of ['a', 'b', 'c', 'd', 'e']) claim(t, lane, 2);
    expect(asObject(t.settle('q', ['e', 'a']))).toEqual({ e: 0 });
    t.endScrape();
    expect(asObject(t.settle('q', ['a']))).toEqual({ a: 0 });
    const off = new ServedTally(0);
    claim(off, 'a', 2);
    expect(off.settle('q', ['a']).size).toBe(0);
  });
});

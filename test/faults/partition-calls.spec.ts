import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { Test } from '@nestjs/testing';
import { EchoMqError, EchoMqModule, LanesService, mintJobId } from '../../lib';
import { EchoMqHealthIndicator } from '../../lib/health';
import { SHARDS_STALE_MS } from '../../lib/shards/shard-counts';
import { bootApp, CapturingLogger, gate, socketsTo, until } from '../support/nest';
import { partitionFixture } from './support/partition-setup';
import { Tally, tallyWorker } from './support/tally';
import { pause, report } from './support/wait';

/** Calls, the health check and app.close() on a network path that goes dark (no FIN, no RST). */
describe('faults: partitions, calls and close', () => {
  const f = partitionFixture();

  /** Settles `p` with what it resolved or rejected with, or 'pending' after `ms`. */
  const within = <T>(p: Promise<T>, ms: number): Promise<T | unknown | 'pending'> =>
    Promise.race([p.catch((e: unknown) => e), pause(ms).then(() => 'pending' as const)]);

  it('a submit on a dead path waits; retried with its jobId on a healthy path it is admitted once, and the first resolves at the heal', async () => {
    const dark = f.lanes(f.proxy.url);
    const healthy = f.lanes(f.server.url);
    await dark.stats('part-retry');
    f.proxy.blackhole();
    const jobId = mintJobId();
    const first = dark.submit('part-retry', 'g', { n: 1 }, { jobId });
    expect(await within(first, 500)).toBe('pending');
    expect(await healthy.submit('part-retry', 'g', { n: 1 }, { jobId })).toBe(jobId);
    f.proxy.heal();
    const t0 = Date.now();
    expect(await first).toBe(jobId);
    const stats = await healthy.stats('part-retry');
    report(`partition, submit on a dead path retried with its jobId: admitted ${stats.totals.submitted}, the first answered ${Date.now() - t0} ms after the heal`);
    expect(stats.totals.submitted).toBe(1);
    expect(stats.pending).toBe(1);
  });

  it('app.close() while blackholed ends within shutdownTimeoutMs (at least 2 s) + 3 s, and leaves no socket open', async () => {
    const tally = new Tally();
    const held = gate();
    const { app, logger } = await bootApp(f.proxy.url, [tallyWorker('part-close', 'closing', tally, { concurrency: 2 }, () => held.promise)],
      { shutdownTimeoutMs: 500, idleBlockMs: 1_000 });
    const lanes = app.get(LanesService);
    const id = await lanes.submit('part-close', 'g', 1);
    await until(() => tally.starts.length === 1, 5_000, 'the handler to start');
    // A waitFor in flight: its subscriber connection is open through the proxy too.
    const waiting = lanes.waitFor('part-close', id, { timeoutMs: 30_000 }).catch((e: unknown) => e);
    await until(() => f.proxy.open >= 3, 5_000, 'commands, the wait and the waitFor subscriber connected');
    f.proxy.blackhole();
    const t0 = Date.now();
    const closed = await within(app.close(), 20_000);
    const closeMs = Date.now() - t0;
    held.open();
    report(`partition, app.close() while blackholed (shutdownTimeoutMs 500, a handler running, a waitFor open): ended in ${closeMs} ms (bound 5,000)`);
    expect(closed).not.toBe('pending');
    expect(closeMs).toBeLessThan(5_000);
    expect(socketsTo(f.proxy.port)).toBe(0);
    expect(logger.text('warn')).toContain('stopping anyway');
    // The open waitFor ended with the app (its timer would keep the process alive for 30 s).
    expect(await within(waiting, 100)).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('callTimeoutMs: calls on a dead path reject with UNAVAILABLE in bound; a retry admits once, and a claim answered late hands its job back', async () => {
    const dark = f.lanes(f.proxy.url, { callTimeoutMs: 500 });
    const healthy = f.lanes(f.server.url);
    await dark.stats('part-bound');
    f.proxy.blackhole();
    const jobId = mintJobId();
    const t0 = Date.now();
    const err = await dark.submit('part-bound', 'g', { n: 1 }, { jobId }).catch((e: unknown) => e);
    const submitMs = Date.now() - t0;
    expect(err).toBeInstanceOf(EchoMqError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', queue: 'part-bound' });
    expect((err as Error).message).toContain('retry a submit with the same jobId');
    expect(submitMs).toBeGreaterThanOrEqual(480);
    expect(submitMs).toBeLessThan(2_500);
    // The app's retry goes through elsewhere; the first, still queued on the dark path, lands at the heal.
    expect(await healthy.submit('part-bound', 'g', { n: 1 }, { jobId })).toBe(jobId);
    const claimErr = await dark.claim('part-bound', { leaseMs: 60_000 }).catch((e: unknown) => e);
    expect(claimErr).toMatchObject({ code: 'UNAVAILABLE' });
    const readErr = await dark.topLanes('part-bound', 5).catch((e: unknown) => e);
    expect(readErr).toMatchObject({ code: 'UNAVAILABLE' });
    f.proxy.heal();
    // NOTE: the late claim leased the job for 60 s; handed back, it is served again at once.
    let again: Awaited<ReturnType<LanesService['claim']>> = null;
    await until(async () => (again = await healthy.claim('part-bound')) !== null, 10_000, 'the late-claimed job to be handed back');
    const stats = await healthy.stats('part-bound');
    report(`partition, callTimeoutMs 500 on a dead path: submit rejected UNAVAILABLE in ${submitMs} ms; retried with its jobId: admitted ${stats.totals.submitted}; the late claim's job handed back`);
    expect(again!.id).toBe(jobId);
    expect(stats.totals.submitted).toBe(1);
    // Once the path is back the same service answers in time again.
    await expect(dark.stats('part-bound')).resolves.toMatchObject({ active: 1 });
  });

  it('callTimeoutMs after the process was idle on the queue (its shard count stale, read again first): one bound, not two', async () => {
    const dark = f.lanes(f.proxy.url, { callTimeoutMs: 500 });
    await dark.stats('part-idle');
    // NOTE: past SHARDS_STALE_MS the call reads the queue's shard map before it goes on.
    await pause(SHARDS_STALE_MS + 200);
    f.proxy.blackhole();
    const t0 = Date.now();
    const err = await dark.submit('part-idle', 'g', { n: 1 }, { jobId: mintJobId() }).catch((e: unknown) => e);
    const submitMs = Date.now() - t0;
    f.proxy.heal();
    report(`partition, callTimeoutMs 500 after ${SHARDS_STALE_MS + 200} ms idle: submit rejected ${(err as EchoMqError).code} in ${submitMs} ms`);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', queue: 'part-idle' });
    expect(submitMs).toBeGreaterThanOrEqual(480);
    expect(submitMs).toBeLessThan(900);
  });

  it('callTimeoutMs: a claimMany whose second round trip gets no answer hands back the jobs of its first', async () => {
    const dark = f.lanes(f.proxy.url, { callTimeoutMs: 500 });
    const healthy = f.lanes(f.server.url);
    // NOTE: 300 jobs take two claim scripts (250, then 50); tiny payloads keep the first reply in one chunk.
    await healthy.submitMany('part-chunks', Array.from({ length: 300 }, (_, i) => ({ group: `g${i % 3}`, payload: i })));
    await dark.stats('part-chunks');
    f.proxy.blackholeAfterNextReply();
    const err = await dark.claimMany('part-chunks', 300, { leaseMs: 60_000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UNAVAILABLE' });
    f.proxy.heal();
    // Without the hand-back the first 250 would wait out their 60 s leases.
    let served = 0;
    await until(async () => (served += (await healthy.claimMany('part-chunks', 300)).jobs.length) === 300, 10_000, 'all 300 jobs served again');
    report(`partition, callTimeoutMs and a claimMany cut between its round trips: all ${served} jobs served again at once`);
  });

  it('callTimeoutMs leaves a durability WAIT its own timeoutMs: short of replicas the submit is NOT_REPLICATED, not UNAVAILABLE', async () => {
    const lanes = f.lanes(f.server.url, { callTimeoutMs: 50, durability: { replicas: 1, timeoutMs: 400 } });
    const err = await lanes.submit('part-wait', 'g', 1).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'NOT_REPLICATED' });
  });

  it('the health indicator is down while the path is dark, and up once it heals', async () => {
    @Module({ imports: [TerminusModule], providers: [EchoMqHealthIndicator] })
    class HealthModule {}
    const logger = new CapturingLogger();
    const mod = await Test.createTestingModule({ imports: [EchoMqModule.forRoot({ connection: f.proxy.url, logger }), HealthModule] }).compile();
    const app = mod.createNestApplication({ logger });
    f.apps.push(app);
    await app.init();
    const health = app.get(EchoMqHealthIndicator);
    expect((await health.isHealthy()).echomq.status).toBe('up');
    f.proxy.blackhole();
    const t0 = Date.now();
    const down = await health.isHealthy();
    const downMs = Date.now() - t0;
    expect(down.echomq).toMatchObject({ status: 'down' });
    expect(String(down.echomq.reason)).toContain('did not answer a PING');
    f.proxy.heal();
    await until(async () => (await health.isHealthy()).echomq.status === 'up', 5_000, 'the check to be up again');
    report(`partition, health while dark: down in ${downMs} ms (its PING bound), up again after the heal`);
  });
});

import { Injectable } from '@nestjs/common';
import type IORedis from 'ioredis';
import {
  LaneConsumer, LaneJob, LanesService, OnQueueEvent, QueueEvent, QueueEventsListener, UnrecoverableError,
} from '../../lib';
import { LaneKeys } from '../../lib/redis/lane-keys';
import { WITHDRAW_WAIT_MS } from '../../lib/explorer/queue-events.explorer';
import { lanesOn } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';
import { bootApp, nestFixture, until } from '../support/nest';

const QUEUE = 'e2e-events';
const QUIET = 'e2e-events-unheard';
const heard: QueueEvent[] = [];

/** Hears every event of QUEUE; it lives in an app of its own, as another process would. */
@QueueEventsListener(QUEUE)
@Injectable()
class Auditor {
  @OnQueueEvent('submitted') submitted(e: QueueEvent): void { heard.push(e); }
  @OnQueueEvent('completed') completed(e: QueueEvent): void { heard.push(e); }
  @OnQueueEvent('failed') failed(e: QueueEvent): void { heard.push(e); }
  @OnQueueEvent('dead') dead(e: QueueEvent): void { heard.push(e); }
  @OnQueueEvent('progress') progress(e: QueueEvent): void { heard.push(e); }
  @OnQueueEvent('cancelled') async cancelled(e: QueueEvent): Promise<void> {
    heard.push(e);
    throw new Error('a listener that throws is logged, and changes nothing');
  }
}

/** Completes `ok` jobs, fails `flaky` ones once, gives up on `bad` ones. */
@LaneConsumer(QUEUE, { concurrency: 2, maxAttempts: 3 })
@Injectable()
class Worker {
  constructor(private readonly lanes: LanesService) {}

  async handle(job: LaneJob<{ kind: string }>): Promise<void> {
    await this.lanes.progress(QUEUE, job.id, job.attempt, { attempt: job.attempt });
    if (job.payload.kind === 'bad') throw new UnrecoverableError('bad input');
    if (job.payload.kind === 'flaky' && job.attempt === 1) throw new Error('flaky');
  }
}

describe('cross-process queue events (@QueueEventsListener, @OnQueueEvent)', () => {
  const fx = nestFixture();

  /** Every PUBLISH the server runs while `run` does, by channel. */
  async function publishesDuring(client: IORedis, run: () => Promise<void>): Promise<string[]> {
    const monitor = await client.monitor();
    const channels: string[] = [];
    monitor.on('monitor', (_t: string, args: string[]) => {
      if (String(args[0]).toLowerCase() === 'publish') channels.push(String(args[1]));
    });
    try {
      await run();
      await client.ping();
    } finally {
      monitor.disconnect();
    }
    return channels;
  }

  it('a listener in one app hears the jobs submitted and handled in others: ids and small fields, never payloads', async () => {
    const { app: listening } = await bootApp(fx.server.url, [Auditor]);
    fx.apps.push(listening);
    const { app: working } = await bootApp(fx.server.url, [Worker], { backoff: { delayMs: 1 } });
    fx.apps.push(working);
    const conn = fx.server.client();
    try {
    const lanes = lanesOn(conn);
    const ok = await lanes.submit(QUEUE, 'a', { kind: 'ok', secret: 'never in an event' });
    const flaky = await lanes.submit(QUEUE, 'b', { kind: 'flaky' });
    const bad = await lanes.submit(QUEUE, 'c', { kind: 'bad' });
    const later = await lanes.submit(QUEUE, 'd', { kind: 'ok' }, { delayMs: 60_000 });
    expect(await lanes.cancel(QUEUE, later)).toBe(true);
    // A lane under a tenant: every event of its jobs names the tenant.
    const acme = await lanes.submit(QUEUE, 't', { kind: 'flaky' }, { tenant: 'acme' });
    const acmeNext = await lanes.submit(QUEUE, 't', { kind: 'ok' });
    const acmeGone = await lanes.submit(QUEUE, 't2', { kind: 'ok' }, { tenant: 'acme', delayMs: 60_000 });
    expect(await lanes.cancel(QUEUE, acmeGone)).toBe(true);
    const has = (event: string, jobId: string) => heard.some((e) => e.event === event && e.jobId === jobId);
    await until(() => has('completed', ok) && has('completed', flaky) && has('dead', bad) && has('cancelled', later)
      && has('completed', acme) && has('completed', acmeNext) && has('cancelled', acmeGone), 10_000, 'the events');
    const ofAcme = heard.filter((e) => [acme, acmeNext, acmeGone].includes(e.jobId));
    expect(new Set(ofAcme.map((e) => e.event))).toEqual(new Set(['submitted', 'failed', 'completed', 'progress', 'cancelled']));
    for (const e of ofAcme) expect({ event: e.event, tenant: e.tenant }).toEqual({ event: e.event, tenant: 'acme' });
    for (const id of [ok, flaky, bad, later]) expect(has('submitted', id)).toBe(true);
    expect(heard.find((e) => e.event === 'submitted' && e.jobId === ok)).toEqual({ event: 'submitted', queue: QUEUE, jobId: ok, group: 'a' });
    expect(heard.find((e) => e.event === 'failed' && e.jobId === flaky)).toEqual({ event: 'failed', queue: QUEUE, jobId: flaky, group: 'b', attempt: 1, error: 'flaky' });
    expect(heard.find((e) => e.event === 'completed' && e.jobId === flaky)).toMatchObject({ attempt: 2 });
    expect(heard.find((e) => e.event === 'dead' && e.jobId === bad)).toEqual({ event: 'dead', queue: QUEUE, jobId: bad, group: 'c', error: 'bad input' });
    expect(heard.find((e) => e.event === 'progress' && e.jobId === ok)).toEqual({ event: 'progress', queue: QUEUE, jobId: ok, group: 'a', progress: { attempt: 1 } });
    expect(heard.find((e) => e.event === 'cancelled')).toEqual({ event: 'cancelled', queue: QUEUE, jobId: later, group: 'd', state: 'scheduled' });
    expect(JSON.stringify(heard)).not.toContain('never in an event');
    } finally {
      await conn.quit();
    }
  });

  it('app.close() of an app with a listener ends though the server is gone (the withdrawal of its announcement is bounded)', async () => {
    const server = await TestRedisServer.start();
    let stopped = false;
    try {
      const { app } = await bootApp(server.url, [Auditor], { shutdownTimeoutMs: 2_000 });
      await server.stop();
      stopped = true;
      const t0 = Date.now();
      await app.close();
      const ms = Date.now() - t0;
      expect(ms).toBeLessThan(WITHDRAW_WAIT_MS + 3_000);
    } finally {
      if (!stopped) await server.stop();
    }
  }, 30_000);

  it('a queue nobody listens to publishes nothing (MONITOR), and a queue stops publishing once its last listener closes', async () => {
    const client = fx.server.client();
    const conn = fx.server.client();
    const lanes = lanesOn(conn);
    const life = async (queue: string) => {
      await lanes.submitMany(queue, [{ group: 'a', payload: 1 }, { group: 'a', payload: 2 }, { group: 'b', payload: 3 }]);
      const one = (await lanes.claim(queue))!;
      await lanes.progress(queue, one.id, one.attempt, 0.5);
      await lanes.complete(queue, one.id, one.attempt);
      const two = (await lanes.claim(queue))!;
      await lanes.fail(queue, two.id, two.attempt, 'x');
      const three = (await lanes.claim(queue))!;
      await lanes.fail(queue, three.id, three.attempt, 'y', { dead: true });
      const four = await lanes.submit(queue, 'c', 4);
      await lanes.cancel(queue, four);
    };
    // Nobody listens anywhere yet.
    expect(await publishesDuring(client, () => life(QUIET))).toEqual([]);
    // A listener of QUEUE: QUIET still publishes nothing, QUEUE publishes each event.
    const { app } = await bootApp(fx.server.url, [Auditor]);
    const quietKeys = new LaneKeys('emq', QUIET);
    const heardKeys = new LaneKeys('emq', QUEUE);
    expect(await publishesDuring(client, () => life(QUIET))).toEqual([]);
    const published = await publishesDuring(client, () => life(QUEUE));
    expect(new Set(published)).toEqual(new Set([heardKeys.eventsChannel]));
    // submitted x4, progress, completed, failed, dead, cancelled
    expect(published.length).toBe(9);
    expect(await client.exists(quietKeys.listeners)).toBe(0);
    await app.close();
    expect(await client.exists(heardKeys.listeners)).toBe(0);
    expect(await publishesDuring(client, () => life(QUEUE))).toEqual([]);
    await client.quit();
    await conn.quit();
  });
});

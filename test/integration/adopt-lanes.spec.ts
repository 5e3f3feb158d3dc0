import { Injectable, Type } from '@nestjs/common';
import type IORedis from 'ioredis';
import { LaneConsumer } from '../../lib/decorators';
import type { LaneJob } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import { LanesService as LanesServiceToken } from '../../lib/lanes.service';
import { echoMqAclRules } from '../../lib/redis/acl';
import { engineFixture, keysOf } from '../support/engine';
import { lanesOn, snapshot } from '../support/lanes';
import { bootApp, until } from '../support/nest';
import { TestRedisServer } from '../support/redis-server';

/**
 * A queue as 0.1 left it: lanes, ring, settings, active, scheduled and dead jobs, and none of what
 * 0.2 added for reading lanes (the lane index) and counting them (the totals). It is written by
 * today's scripts, then stripped of those keys: 0.2 reads 0.1's rows as they are (they only carry
 * more fields), so the keys are the difference that matters here.
 */
async function queueFrom01(client: IORedis, lanes: LanesService, queue: string, laneCount: number): Promise<{ pending: number }> {
  const items = [];
  for (let g = 0; g < laneCount; g++) for (let i = 0; i < (g % 4) + 1; i++) items.push({ group: `t${g}`, payload: { g, i } });
  await lanes.submitMany(queue, items);
  await lanes.submit(queue, 'later', { late: true }, { delayMs: 60_000 });
  await lanes.weight(queue, 't0', 3);
  await lanes.limit(queue, 't1', 1);
  await lanes.pause(queue, 't2');
  const held = (await lanes.claimMany(queue, 5)).jobs;
  const doomed = held.pop()!;
  expect(await lanes.fail(queue, doomed.id, doomed.attempt, 'boom', { maxAttempts: 1 })).toBe('dead');
  const k = keysOf(queue);
  await client.del(k.index, k.stats);
  // NOTE: submitted jobs, minus the 5 claimed (4 active, 1 dead) and the scheduled one.
  return { pending: items.length - 5 };
}

describe('a queue written before 0.2, brought into the lane index at boot', () => {
  const engine = engineFixture();

  it('indexes every lane, a page at a time, and counts the jobs from before so that pending reads right', async () => {
    const lanes = lanesOn(engine.client);
    const q = engine.queues.queue();
    const { pending } = await queueFrom01(engine.client, lanes, q, 1_200);
    // As 0.1 left it: nothing indexed, nothing counted.
    expect(await lanes.topLanes(q, 10)).toEqual([]);
    expect((await lanes.stats(q)).pending).toBe(0);

    await lanes.adoptLanes([q]);

    const every = await lanes.lanes(q);
    const scanned = new Set<string>();
    let cursor: string | null = '0';
    do {
      const page = await lanes.scanLanes(q, { cursor: cursor === '0' ? undefined : cursor, count: 1_000 });
      for (const l of page.lanes) scanned.add(l.group);
      cursor = page.cursor;
    } while (cursor);
    expect([...scanned].sort()).toEqual(every.map((l) => l.group).sort());
    expect(scanned.size).toBe(1_200);
    const top = await lanes.topLanes(q, 3);
    expect(top.map((l) => l.pending)).toEqual([4, 4, 4]);
    const stats = await lanes.stats(q);
    expect(stats.lanes).toBe(1_200);
    expect(stats.pending).toBe(pending);
    expect(every.reduce((n, l) => n + l.pending, 0)).toBe(pending);
    expect(stats.totals.submitted).toBe(pending + 4 + 1 + 1);
    expect(await engine.client.hget(keysOf(q).meta, 'adopt')).toBe('done');

    // Done once: a later boot reads one field and writes nothing.
    const before = await snapshot(engine.client, q);
    await lanes.adoptLanes([q]);
    expect(await snapshot(engine.client, q)).toEqual(before);

    // Served to the end, the counts come out even.
    const dead = (await lanes.dead(q))[0];
    await lanes.retryDead(q, dead.id);
    await lanes.resume(q, 't2');
    await lanes.limit(q, 't1', null);
    for (let n = 0; n < 10_000; n++) {
      const { jobs } = await lanes.claimMany(q, 50);
      if (jobs.length === 0) break;
      await lanes.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt })));
    }
    const after = await lanes.stats(q);
    expect(after.pending).toBe(0);
    expect(after.totals.submitted - after.totals.completed).toBe(4 + 1); // the 4 still held, the scheduled one
  });

  it('does not count again a queue that 0.2 has already admitted to (its older jobs cannot be told apart)', async () => {
    const lanes = lanesOn(engine.client);
    const q = engine.queues.queue();
    await queueFrom01(engine.client, lanes, q, 10);
    await lanes.submit(q, 'fresh', { n: 1 });
    const submitted = (await lanes.stats(q)).totals.submitted;
    expect(submitted).toBe(1);
    await lanes.adoptLanes([q]);
    expect((await lanes.stats(q)).totals.submitted).toBe(1);
    // Its lanes are indexed all the same.
    expect((await lanes.stats(q)).lanes).toBe(11);
  });

  it('a new queue costs one call and stays empty of counts', async () => {
    const lanes = lanesOn(engine.client);
    const q = engine.queues.queue();
    await lanes.adoptLanes([q]);
    const stats = await lanes.stats(q);
    expect(stats.totals.submitted).toBe(0);
    expect(stats.lanes).toBe(0);
    expect(await engine.client.hget(keysOf(q).meta, 'adopt')).toBe('done');
  });

  it('an app adopts its consumers\' queues before its loops claim, and serves every job from before', async () => {
    const lanes = lanesOn(engine.client);
    const { pending } = await queueFrom01(engine.client, lanes, UPGRADED, 40);
    await lanes.resume(UPGRADED, 't2');
    await lanes.limit(UPGRADED, 't1', null);
    const { app, logger } = await bootApp(engine.server.url, [UpgradedWorker]);
    try {
      expect(logger.text('log')).toMatch(new RegExp(`Queue ${UPGRADED}: its \\d+ lane\\(s\\) from before 0\\.2 are in the lane index now`));
      await until(() => served.size === pending, 10_000, 'every pending job served');
      const service = app.get(LanesServiceToken);
      await until(async () => (await service.stats(UPGRADED)).pending === 0, 5_000, 'pending at 0');
      const stats = await service.stats(UPGRADED);
      expect(stats.totals.completed).toBe(pending);
      expect(stats.totals.submitted - stats.totals.completed).toBe(4 + 1 + 1); // held by the test, scheduled, dead
    } finally {
      await app.close();
    }
  });

  it('a new queue\'s first boot says nothing about lanes from before 0.2 (there are none), and walks to the end', async () => {
    const { app, logger } = await bootApp(engine.server.url, [FreshWorker]);
    try {
      expect(await engine.client.hget(keysOf(FRESH).meta, 'adopt')).toBe('done');
      expect(logger.text()).not.toMatch(/before 0\.2/);
    } finally {
      await app.close();
    }
  });

  it('with a 0.1 ACL user (no SSCAN, HSCAN) the app warns, naming the right, and boots and serves all the same', async () => {
    const lanes = lanesOn(engine.client);
    const { pending } = await queueFrom01(engine.client, lanes, OLD_ACL, 6);
    await lanes.resume(OLD_ACL, 't2');
    await lanes.limit(OLD_ACL, 't1', null);
    const rules = echoMqAclRules().replace(' +sscan +hscan', '');
    expect(rules).not.toContain('scan +h');
    await engine.client.call('ACL', 'SETUSER', 'old01', 'on', '>pw', ...rules.split(' '));
    const { app, logger } = await bootApp('', [OldAclWorker],
      { connection: { host: '127.0.0.1', port: engine.server.port, username: 'old01', password: 'pw' } });
    try {
      expect(logger.text('warn')).toMatch(/Could not index the lanes of a queue written before 0\.2.*grant it \+sscan \+hscan/s);
      await until(() => servedOld.size === pending, 10_000, 'every pending job served');
    } finally {
      await app.close();
    }
  });

  it('a boot while the server is down is not held by the walk, which ends once the server is back', async () => {
    const server = await TestRedisServer.start();
    await server.kill();
    const started = Date.now();
    const { app } = await bootApp(server.url, [DownWorker]);
    try {
      // NOTE: one 3 s deadline holds such a boot, shared by the connection's first outcome and the
      // job-id node lease (each waited 3 s of its own); the walk and the eviction-policy check wait
      // for no server that is not there.
      expect(Date.now() - started).toBeLessThan(5_000);
      await server.launch();
      const client = server.client();
      try {
        await until(async () => (await client.hget(keysOf(DOWN).meta, 'adopt')) === 'done', 10_000, 'the walk done');
        await app.get(LanesServiceToken).submit(DOWN, 'g', { n: 1 });
        await until(() => servedDown.size === 1, 10_000, 'the job served');
      } finally {
        await client.quit();
      }
    } finally {
      await app.close();
      await server.stop();
    }
  }, 30_000);
});

/** A consumer of `queue` that notes the id of every job it is handed in `served`. */
function servingWorker(queue: string, served: Set<string>): Type<unknown> {
  @LaneConsumer(queue, { concurrency: 4 })
  @Injectable()
  class ServingWorker {
    handle(job: LaneJob): void {
      served.add(job.id);
    }
  }
  return ServingWorker;
}

const UPGRADED = `upgraded-${process.pid}`;
const served = new Set<string>();
const UpgradedWorker = servingWorker(UPGRADED, served);
const OLD_ACL = `old-acl-${process.pid}`;
const servedOld = new Set<string>();
const OldAclWorker = servingWorker(OLD_ACL, servedOld);
const FRESH = `fresh-${process.pid}`;
const FreshWorker = servingWorker(FRESH, new Set<string>());
const DOWN = `down-${process.pid}`;
const servedDown = new Set<string>();
const DownWorker = servingWorker(DOWN, servedDown);

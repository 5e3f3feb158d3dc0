import { Injectable } from '@nestjs/common';
import type IORedis from 'ioredis';
import { EchoMqError, LaneConsumer, LaneJob, LanesService, mintJobId, OnQueueEvent, QueueEventsListener } from '../../lib';
import type { QueueEvent } from '../../lib';
import { SUBMIT_CHUNK } from '../../lib/echomq.constants';
import { ECHOMQ_FUNCTION_ACL_RULES, echoMqAclRules } from '../../lib/redis/acl';
import { LaneScripts } from '../../lib/scripts/lane-scripts';
import { lanesOn, testQueue } from '../support/lanes';
import { bootApp, until } from '../support/nest';
import { TestRedisServer } from '../support/redis-server';

const appQueue = testQueue();
const ran: string[] = [];

@LaneConsumer(appQueue, { concurrency: 4 })
@Injectable()
class AclWorker {
  async handle(job: LaneJob): Promise<void> {
    ran.push(job.id);
  }
}

const heard: QueueEvent[] = [];

/** Hears the app queue's events: its announcement and subscription run under the EchoMQ user too. */
@QueueEventsListener(appQueue)
@Injectable()
class AclAudit {
  @OnQueueEvent('completed') completed(e: QueueEvent): void {
    heard.push(e);
  }
}

/** LanesService methods that are not the queue's public operations (hooks and internals). */
const NOT_PUBLIC = new Set(['constructor', 'onModuleInit', 'beforeApplicationShutdown', 'onApplicationShutdown', 'keysOf', 'settings', 'admitArgs', 'leaseOf', 'wclaimTurn', 'extendUntil', 'shardsOf', 'shardWoke', 'bootFairness']);

/**
 * Least privilege: a user allowed the EchoMQ keys and the commands in lib/redis/acl.ts, nothing
 * else (no CONFIG, no other keys), runs every public method and a consumer loop; a user without
 * access to emq:* gets an EchoMqError that says which rules it lacks, not a raw reply or a hang.
 */
describe('ACL: least privilege', () => {
  let server: TestRedisServer;
  let admin: IORedis;
  const clients: IORedis[] = [];
  const as = async (user: string): Promise<IORedis> => {
    const c = server.client();
    clients.push(c);
    await c.auth(user, 'pw');
    return c;
  };

  beforeAll(async () => {
    server = await TestRedisServer.start();
    admin = server.client();
    await admin.call('ACL', 'SETUSER', 'echomq', 'on', '>pw', ...echoMqAclRules().split(' '));
    // The same rights and the function library's.
    await admin.call('ACL', 'SETUSER', 'echomqfn', 'on', '>pw', ...`${echoMqAclRules()} ${ECHOMQ_FUNCTION_ACL_RULES}`.split(' '));
    // 0.2's rules: everything but SMISMEMBER, which 0.3's submitMany asks of a tenant's lanes.
    await admin.call('ACL', 'SETUSER', 'echomq02', 'on', '>pw', ...echoMqAclRules().replace(' +smismember', '').split(' '));
    // Every command EchoMQ needs, but the keys of another prefix only.
    await admin.call('ACL', 'SETUSER', 'stranger', 'on', '>pw', ...echoMqAclRules('other').split(' '));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit()));
    await admin.quit();
    await server.stop();
  });

  it.each([
    ['echomq', 'evalsha'],
    ['echomqfn', 'fcall'],
  ])('every public method of LanesService works under the EchoMQ user %s (scripts by %s)', async (user, path) => {
    const connection = await as(user);
    expect(await new LaneScripts(connection).path()).toBe(path);
    const lanes = lanesOn(connection, { backoff: { delayMs: 0 } });
    const q = testQueue();
    const called = new Set<string>();
    const call = async <T>(name: keyof LanesService, run: () => Promise<T>): Promise<T> => {
      called.add(name);
      return run();
    };
    const id = await call('submit', () => lanes.submit(q, 'a', { n: 1 }, { jobId: mintJobId(), maxAttempts: 1 }));
    await call('submitMany', () => lanes.submitMany(q, [{ group: 'b', payload: 2 }, { group: 'c', payload: 3, opts: { delayMs: 1 } }]));
    await call('weight', () => lanes.weight(q, 'b', 2));
    await call('limit', () => lanes.limit(q, 'b', 5));
    await call('limit', () => lanes.limit(q, 'b', null));
    await call('maxDepth', () => lanes.maxDepth(q, 'b', 1_000));
    await call('maxDepth', () => lanes.maxDepth(q, 'b', null));
    await call('ordered', () => lanes.ordered(q, 'b', true));
    await call('ordered', () => lanes.ordered(q, 'b', false));
    await call('rate', () => lanes.rate(q, 'b', { max: 100, perMs: 1_000 }));
    await call('rate', () => lanes.rate(q, 'b', null));
    await call('pause', () => lanes.pause(q, 'b', { forMs: 60_000, reason: 'acl' }));
    await call('resume', () => lanes.resume(q, 'b'));
    expect((await call('lane', () => lanes.lane(q, 'b'))).pending).toBe(1);
    expect((await call('lanes', () => lanes.lanes(q))).length).toBeGreaterThanOrEqual(2);
    expect(await call('ring', () => lanes.ring(q, 5))).toEqual(expect.arrayContaining(['a']));
    expect((await call('peek', () => lanes.peek(q, 'a', 1)))).toEqual([id]);
    const first = await call('claim', () => lanes.claim(q, { leaseMs: 10_000 }));
    expect(first?.id).toBe(id);
    expect(await call('extend', () => lanes.extend(q, id, first!.attempt, 10_000))).toBe(true);
    expect((await call('extendMany', () => lanes.extendMany(q, [{ jobId: id, token: first!.attempt }], 10_000)))[0]).toBeGreaterThan(0);
    expect(await call('fail', () => lanes.fail(q, id, first!.attempt, new Error('boom')))).toBe('dead');
    const dead = await call('dead', () => lanes.dead(q));
    expect(dead.map((j) => j.id)).toEqual([id]);
    expect(await call('retryDead', () => lanes.retryDead(q, id))).toBe(true);
    await until(async () => (await call('promote', () => lanes.promote(q))) >= 0, 1_000, 'promote');
    const batch = await call('claimMany', () => lanes.claimMany(q, 2, { leaseMs: 1 }));
    expect(batch.jobs.length).toBeGreaterThan(0);
    await until(async () => (await call('reap', () => lanes.reap(q))) > 0, 2_000, 'an expired lease to be reaped');
    const turn = await call('wclaim', () => lanes.wclaim(q, { leaseMs: 10_000 }));
    expect(turn.length).toBeGreaterThan(0);
    const turns = await call('wclaimMany', () => lanes.wclaimMany(q, 2, { leaseMs: 10_000 }));
    for (const j of turns.turns.flat()) expect(await lanes.release(q, j.id, j.attempt)).toBe(true);
    expect(await call('release', () => lanes.release(q, turn[0].id, turn[0].attempt))).toBe(true);
    const again = (await lanes.claimMany(q, 10)).jobs;
    const [head, ...rest] = again;
    expect(await call('complete', () => lanes.complete(q, head.id, head.attempt))).toBe(true);
    expect(await call('completeMany', () => lanes.completeMany(q, rest.map((j) => ({ jobId: j.id, token: j.attempt })))))
      .toEqual(rest.map(() => true));
    const stats = await call('stats', () => lanes.stats(q));
    expect(stats.totals.completed).toBe(again.length);
    expect((await call('scanLanes', () => lanes.scanLanes(q))).lanes.length).toBeGreaterThan(0);
    expect((await call('topLanes', () => lanes.topLanes(q, 5))).length).toBeGreaterThan(0);
    expect((await call('shares', () => lanes.shares(q, { count: 5 }))).lanes.length).toBeGreaterThan(0);
    expect(Array.isArray(await call('oldestLanes', () => lanes.oldestLanes(q, 5)))).toBe(true);
    // The boot's walk of a queue from before 0.2 (it warns rather than throws: the mark says it ran).
    await call('adoptLanes', () => lanes.adoptLanes([q]));
    expect(await admin.hget(`emq:{${q}}:meta`, 'adopt')).toBe('done');
    const waited = await lanes.submit(q, 'w', 'wait for me');
    expect(await call('job', () => lanes.job(q, waited))).toMatchObject({ state: 'pending' });
    expect(await call('position', () => lanes.position(q, waited))).toMatchObject({ laneRank: 0 });
    const waiting = call('waitFor', () => lanes.waitFor(q, waited, { timeoutMs: 5_000 }));
    let held = await lanes.claim(q);
    while (held && held.id !== waited) {
      await lanes.complete(q, held.id, held.attempt);
      held = await lanes.claim(q);
    }
    expect(await lanes.complete(q, waited, held!.attempt, { ok: 1 })).toBe(true);
    expect(await waiting).toMatchObject({ state: 'completed', result: { ok: 1 } });
    // Tenants: a tenant's lanes, its settings and its ceiling, and the queue's ceiling.
    await call('tenantWeight', () => lanes.tenantWeight(q, 'T', 2));
    await call('tenantLimit', () => lanes.tenantLimit(q, 'T', 1));
    await call('queueLimit', () => lanes.queueLimit(q, 100));
    await lanes.submit(q, 't1', 'tenant job', { tenant: 'T' });
    await lanes.submitMany(q, [{ group: 't2', payload: 1, opts: { tenant: 'T' } }]);
    await call('pauseTenant', () => lanes.pauseTenant(q, 'T', { forMs: 60_000, reason: 'acl' }));
    expect(await call('tenant', () => lanes.tenant(q, 'T'))).toMatchObject({ paused: true, lanes: 2, pending: 2 });
    expect(await call('topTenants', () => lanes.topTenants(q, 5))).toEqual([{ tenant: 'T', pending: 2 }]);
    await call('resumeTenant', () => lanes.resumeTenant(q, 'T'));
    const ofTenant = await lanes.wclaim(q);
    expect(ofTenant.map((j) => j.group)).toEqual(['t1']);
    expect(await lanes.complete(q, ofTenant[0].id, ofTenant[0].attempt)).toBe(true);
    await lanes.queueLimit(q, null);
    await call('pauseQueue', () => lanes.pauseQueue(q));
    expect((await lanes.stats(q)).paused).toBe(true);
    await call('resumeQueue', () => lanes.resumeQueue(q));
    // compat mode reads the ring itself (LPOS, LRANGE): the same user may run it.
    const shared = lanesOn(await as(user), { compat: 'echomq' });
    await shared.submit(q, 'z', 1);
    await shared.resume(q, 'z');
    expect((await shared.lanes(q)).find((l) => l.group === 'z')).toMatchObject({ pending: 1, inRing: true });

    // 0.3: progress, fail(dead), cancel, drain, clean, obliterate.
    const p = await lanes.submit(q, 'p', 'progress');
    let ph = await lanes.claim(q, { leaseMs: 10_000 });
    while (ph && ph.id !== p) ph = await lanes.claim(q, { leaseMs: 10_000 });
    expect(await call('progress', () => lanes.progress(q, p, ph!.attempt, { pct: 50 }))).toBe(true);
    expect(await lanes.job(q, p)).toMatchObject({ progress: { pct: 50 } });
    expect(await lanes.fail(q, p, ph!.attempt, 'no', { dead: true })).toBe('dead');
    expect(await call('clean', () => lanes.clean(q, 'dead'))).toBeGreaterThan(0);
    const kept = lanesOn(await as(user), { keepCompletedMs: 60_000 });
    await kept.submit(q, 'k', 1);
    const kh = (await kept.claim(q))!;
    await kept.complete(q, kh.id, kh.attempt);
    expect(await lanes.clean(q, 'completed')).toBeGreaterThan(0);
    const c = await lanes.submit(q, 'x', 1);
    expect(await call('cancel', () => lanes.cancel(q, c))).toBe(true);
    await lanes.submitMany(q, [{ group: 'y', payload: 1 }, { group: 'y', payload: 2, opts: { delayMs: 60_000 } }]);
    expect(await call('drain', () => lanes.drain(q, { group: 'y' }))).toBe(2);
    await lanes.submit(q, 'y', 3);
    expect(await lanes.drain(q)).toBeGreaterThan(0);
    // Fairness by work: the virtual-time ring (ZADD XX INCR, the vtags hash) and time's settling on ack.
    await call('fairness', () => lanes.fairness(q, { by: 'cost' }));
    await lanes.submitMany(q, [{ group: 'f', payload: 1, opts: { cost: 5 } }, { group: 'g', payload: 2 }, { group: 'f', payload: 3, opts: { cost: 5 } }]);
    await lanes.fairness(q, { by: 'time' });
    for (const job of (await lanes.claimMany(q, 2, { leaseMs: 10_000 })).jobs) expect(await lanes.complete(q, job.id, job.attempt)).toBe(true);
    const fh = (await lanes.wclaim(q, { leaseMs: 10_000 }))[0];
    expect(await lanes.release(q, fh.id, fh.attempt)).toBe(true);
    await lanes.fairness(q, { by: 'jobs' });
    expect((await lanes.stats(q)).fairness).toEqual({ by: 'jobs' });
    await call('obliterate', () => lanes.obliterate(q, { force: true }));
    expect(await admin.keys(`emq:{${q}}:*`)).toEqual([]);

    // A sharded queue: the shard count, claims that ask each shard's ring size, acks found by id.
    const sharded = lanesOn(connection, { shardsOnOneServer: true });
    const sq = testQueue();
    await call('shards', () => sharded.shards(sq, 3));
    expect(await call('shardCount', () => sharded.shardCount(sq))).toBe(3);
    await sharded.submitMany(sq, Array.from({ length: 12 }, (_, i) => ({ group: `s${i}`, payload: i })));
    const spread = await lanesOn(connection, { shardsOnOneServer: true }).claimMany(sq, 12);
    expect(spread.jobs.length).toBe(12);
    expect(await sharded.completeMany(sq, spread.jobs.map((j) => ({ jobId: j.id, token: j.attempt })))).toEqual(spread.jobs.map(() => true));
    expect((await sharded.stats(sq)).totals.completed).toBe(12);
    await sharded.obliterate(sq);
    expect(await admin.keys(`emq:{${sq}*`)).toEqual([]);

    const publicMethods = Object.getOwnPropertyNames(LanesService.prototype).filter((m) => !NOT_PUBLIC.has(m));
    // A public method added to LanesService must be exercised here under the EchoMQ user too.
    expect(publicMethods.filter((m) => !called.has(m))).toEqual([]);
  });

  it.each([['echomq'], ['echomqfn'], ['echomq02']])('a submitMany of many chunks naming tenants works under %s: admitted, and refused whole', async (user) => {
    const lanes = lanesOn(await as(user), {});
    const q = testQueue();
    await lanes.submit(q, 'u', 0, { tenant: 'U' });
    const fill = Array.from({ length: SUBMIT_CHUNK }, (_, i) => ({ group: `f${i}`, payload: i }));
    // 'u' and 'a' are past the first chunk: checked before it writes (u confirmed as U's, a new).
    await lanes.submitMany(q, [...fill, { group: 'a', payload: 1, opts: { tenant: 'T' } }, { group: 'u', payload: 1, opts: { tenant: 'U' } }]);
    expect(await lanes.lane(q, 'u')).toMatchObject({ tenant: 'U', pending: 2 });
    expect(await lanes.lane(q, 'a')).toMatchObject({ tenant: 'T', pending: 1 });
    const before = await admin.dbsize();
    await expect(lanes.submitMany(q, [...fill, { group: 'u', payload: 2, opts: { tenant: 'T' } }]))
      .rejects.toMatchObject({ name: 'EchoMqError', argument: `items[${SUBMIT_CHUNK}].opts.tenant` });
    expect(await admin.dbsize()).toBe(before);
    await lanes.obliterate(q, { force: true });
  });

  it('a Nest app under the EchoMQ user boots, runs its consumer loop and a queue-event listener, and closes (CONFIG refused, coped with)', async () => {
    const { app, logger } = await bootApp('', [AclWorker, AclAudit],
      { connection: { host: '127.0.0.1', port: server.port, username: 'echomq', password: 'pw' } });
    try {
      const ids = await app.get(LanesService).submitMany(appQueue, [...Array(20)].map((_, i) => ({ group: `g${i % 3}`, payload: i })));
      await until(() => ids.every((i) => ran.includes(i)), 10_000, 'the consumer to run every job');
      await until(() => ids.every((i) => heard.some((e) => e.jobId === i)), 10_000, 'the completed events of every job');
    } finally {
      await app.close();
    }
    expect(logger.text()).toMatch(/maxmemory-policy/);
    expect(logger.text()).not.toMatch(/NOPERM|failed/);
  });

  it('a user without access to emq:* gets EchoMqError SERVER_REJECTED naming the missing rules; its loop backs off and closes', async () => {
    const lanes = lanesOn(await as('stranger'));
    const err = await lanes.submit(testQueue(), 'g', 1).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(EchoMqError);
    expect((err as EchoMqError).code).toBe('SERVER_REJECTED');
    expect((err as Error).message).toMatch(/NOPERM/);
    expect((err as Error).message).toContain('~emq:*');
    expect((err as Error).message).toContain(echoMqAclRules('emq'));

    const { app, logger } = await bootApp('', [AclWorker, AclAudit],
      { connection: { host: '127.0.0.1', port: server.port, username: 'stranger', password: 'pw' } });
    const refused = await app.get(LanesService).submit(appQueue, 'g', 1).then(() => undefined, (e: unknown) => e);
    expect((refused as EchoMqError).code).toBe('SERVER_REJECTED');
    await until(() => /claiming from .* failed \(EchoMQ .* NOPERM/.test(logger.text('error')), 5_000, 'the loop to log the refusal');
    // Its queue-event listener's subscription is refused too: logged with the rules, the app runs on.
    expect(logger.text('error')).toMatch(/could not subscribe to the events of .*NOPERM.*resetchannels &emq:\*/);
    const closing = Date.now();
    await app.close();
    expect(Date.now() - closing).toBeLessThan(2_000);
  });
});

import IORedis from 'ioredis';
import { engineFixture, keysOf, serverTimeMs, tag, waitPastServerTime } from '../support/engine';
import type { LanesService } from '../../lib/lanes.service';

describe('leases: expiry, reap, fencing tokens, extend, release', () => {
  const engine = engineFixture({ maxAttempts: 3 });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  it('lease expiry + reap returns the job to the head of its lane with gactive decremented', async () => {
    const q = queues.queue();
    for (let i = 0; i < 3; i++) await lanes.submit(q, 'a', { i });
    await lanes.submit(q, 'b', { i: 0 });
    // NOTE: long enough that the reap right below cannot find it expired even on a slow machine.
    const held = await lanes.claim(q, { leaseMs: 250 });
    expect(tag(held!)).toBe('a0');
    expect(await client.hget(keysOf(q).gactive, 'a')).toBe('1');
    expect(await lanes.reap(q)).toBe(0);

    await waitPastServerTime(client, held!.leaseUntil);
    expect(await lanes.reap(q)).toBe(1);
    expect(await client.hexists(keysOf(q).gactive, 'a')).toBe(0);
    expect(await client.zcard(keysOf(q).active)).toBe(0);
    expect(await client.hget(keysOf(q).job(held!.id), 'state')).toBe('pending');
    expect(await client.zrange(keysOf(q).lane('a'), 0, 0)).toEqual([held!.id]);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 3, active: 0, inRing: true });

    expect(tag((await lanes.claim(q))!)).toBe('b0');
    const again = await lanes.claim(q);
    expect(again).toMatchObject({ id: held!.id, attempt: 2 });
  });

  it('a reaped lane at its ceiling rejoins the ring', async () => {
    const q = queues.queue();
    for (let i = 0; i < 2; i++) await lanes.submit(q, 'a', { i });
    await lanes.limit(q, 'a', 1);
    const held = await lanes.claim(q, { leaseMs: 20 });
    expect((await lanes.lane(q, 'a')).inRing).toBe(false);
    await waitPastServerTime(client, held!.leaseUntil);
    expect(await lanes.reap(q)).toBe(1);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 2, active: 0, inRing: true });
  });

  it('a stale token is refused by complete, fail and extend, and changes nothing', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', { i: 0 });
    const first = await lanes.claim(q, { leaseMs: 20 });
    await waitPastServerTime(client, first!.leaseUntil);
    await lanes.reap(q);
    const second = await lanes.claim(q, { leaseMs: 60_000 });
    expect(second!.attempt).toBe(first!.attempt + 1);
    const row = await client.hgetall(keysOf(q).job(first!.id));
    const lease = await client.zscore(keysOf(q).active, first!.id);

    expect(await lanes.complete(q, first!.id, first!.attempt)).toBe(false);
    expect(await lanes.fail(q, first!.id, first!.attempt, 'late')).toBe('stale');
    expect(await lanes.extend(q, first!.id, first!.attempt, 60_000)).toBe(false);
    expect(await lanes.release(q, first!.id, first!.attempt)).toBe(false);
    expect(await lanes.complete(q, first!.id, second!.attempt + 1)).toBe(false);
    expect(await client.hgetall(keysOf(q).job(first!.id))).toEqual(row);
    expect(await client.zscore(keysOf(q).active, first!.id)).toBe(lease);

    expect(await lanes.complete(q, second!.id, second!.attempt)).toBe(true);
    expect(await lanes.complete(q, second!.id, second!.attempt)).toBe(false);
  });

  it('a token of a job that is not held (pending, unknown) is refused', async () => {
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', { i: 0 });
    expect(await lanes.complete(q, id, 1)).toBe(false);
    expect(await lanes.fail(q, id, 1, 'x')).toBe('stale');
    expect(await lanes.extend(q, id, 1, 1_000)).toBe(false);
    expect(await lanes.complete(q, 'JOB00000000000', 1)).toBe(false);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 1, active: 0 });
  });

  it('extend renews the lease on the server clock, so reap leaves the job alone', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', { i: 0 });
    const held = await lanes.claim(q, { leaseMs: 40 });
    const before = await serverTimeMs(client);
    expect(await lanes.extend(q, held!.id, held!.attempt, 60_000)).toBe(true);
    const after = await serverTimeMs(client);
    const lease = Number(await client.zscore(keysOf(q).active, held!.id));
    expect(lease).toBeGreaterThanOrEqual(before + 60_000);
    expect(lease).toBeLessThanOrEqual(after + 60_000);
    const until = await lanes.extendUntil(q, held!.id, held!.attempt, 60_000);
    expect(until).toBe(Number(await client.zscore(keysOf(q).active, held!.id)));

    await waitPastServerTime(client, held!.leaseUntil);
    expect(await lanes.reap(q)).toBe(0);
    expect(await lanes.complete(q, held!.id, held!.attempt)).toBe(true);
  });

  it('a job reaped with its attempts spent goes dead', async () => {
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', { i: 0 }, { maxAttempts: 2 });
    for (let attempt = 1; attempt <= 2; attempt++) {
      const held = await lanes.claim(q, { leaseMs: 15 });
      expect(held).toMatchObject({ id, attempt });
      await waitPastServerTime(client, held!.leaseUntil);
      expect(await lanes.reap(q)).toBe(1);
    }
    expect(await client.hget(keysOf(q).job(id), 'state')).toBe('dead');
    expect(await client.zscore(keysOf(q).dead, id)).not.toBeNull();
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 0, active: 0, inRing: false });
    const dead = await lanes.dead(q);
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ id, group: 'a', attempt: 2, payload: { i: 0 } });
    expect(dead[0].lastError).toMatch(/lease expired/);
    expect((await lanes.stats(q)).dead).toBe(1);
  });

  it('reap uses the default maxAttempts when a job has none of its own', async () => {
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', { i: 0 });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const held = await lanes.claim(q, { leaseMs: 10 });
      await waitPastServerTime(client, held!.leaseUntil);
      await lanes.reap(q);
    }
    expect(await client.hget(keysOf(q).job(id), 'state')).toBe('dead');
  });

  it('reap handles more expired leases than one script call takes', async () => {
    const q = queues.queue();
    await lanes.submitMany(q, [...Array(1200).keys()].map((i) => ({ group: `g${i % 7}`, payload: { i } })));
    // One claim call serves at most 1,000 jobs, so the 1,200 leases come from two.
    const jobs = [...(await lanes.claimMany(q, 1000, { leaseMs: 10 })).jobs, ...(await lanes.claimMany(q, 200, { leaseMs: 10 })).jobs];
    expect(jobs).toHaveLength(1200);
    await waitPastServerTime(client, jobs[jobs.length - 1].leaseUntil);
    expect(await lanes.reap(q)).toBe(1200);
    expect(await client.exists(keysOf(q).active, keysOf(q).gactive)).toBe(0);
    expect((await lanes.lanes(q)).reduce((n, l) => n + l.pending, 0)).toBe(1200);
  });

  it('release hands a held job back to the head of its lane without spending an attempt', async () => {
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', { i: 0 }, { maxAttempts: 2 });
    await lanes.submit(q, 'a', { i: 1 });
    const held = await lanes.claim(q);
    expect(await lanes.release(q, id, held!.attempt)).toBe(true);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 2, active: 0, inRing: true });
    expect(await client.zrange(keysOf(q).lane('a'), 0, 0)).toEqual([id]);
    expect(await lanes.complete(q, id, held!.attempt)).toBe(false);
    expect(await lanes.release(q, id, held!.attempt)).toBe(false);
    // Claims 2 and 3 spend the budget of 2; the released first claim is refunded.
    const second = await lanes.claim(q, { leaseMs: 10 });
    expect(second).toMatchObject({ id, attempt: 2 });
    await waitPastServerTime(client, second!.leaseUntil);
    expect(await lanes.reap(q)).toBe(1);
    expect(await client.hget(keysOf(q).job(id), 'state')).toBe('pending');
    const third = await lanes.claim(q, { leaseMs: 10 });
    expect(third).toMatchObject({ id, attempt: 3 });
    await waitPastServerTime(client, third!.leaseUntil);
    expect(await lanes.reap(q)).toBe(1);
    expect(await client.hget(keysOf(q).job(id), 'state')).toBe('dead');
  });
});

import type IORedis from 'ioredis';
import { engineFixture, keysOf, serverTimeMs, snapshotAll, waitPastServerTime } from '../support/engine';
import { lanesOn, snapshot } from '../support/lanes';
import { EchoMqError } from '../../lib/errors';
import type { LanesService } from '../../lib/lanes.service';

describe('cancel, drain, clean, obliterate', () => {
  const engine = engineFixture({ maxAttempts: 1 });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  /** The ring and its set, the lane index with depths, and the totals. */
  async function shape(q: string): Promise<{ ring: string[]; ringset: string[]; index: Record<string, string>; cancelled: number }> {
    const k = keysOf(q);
    const flat = await client.zrange(k.index, 0, -1, 'WITHSCORES');
    const index: Record<string, string> = {};
    // NOTE: the lanes only; their head entries ('{h}<group>', see lua/includes/headBack.lua) are not depths.
    for (let i = 0; i < flat.length; i += 2) if (!flat[i].startsWith('{h}')) index[flat[i]] = flat[i + 1];
    return {
      ring: await client.lrange(k.ring, 0, -1), ringset: (await client.smembers(k.ringSet)).sort(), index,
      cancelled: (await lanes.stats(q)).totals.cancelled,
    };
  }

  it('cancel removes a pending job: its lane leaves the ring and the index once empty; counted as cancelled', async () => {
    const q = queues.queue();
    const a1 = await lanes.submit(q, 'a', 1, { dedupKey: 'k1' });
    const a2 = await lanes.submit(q, 'a', 2);
    await lanes.submit(q, 'b', 3);
    expect(await lanes.cancel(q, a1)).toBe(true);
    expect(await shape(q)).toEqual({ ring: ['a', 'b'], ringset: ['a', 'b'], index: { a: '1', b: '1' }, cancelled: 1 });
    expect(await lanes.job(q, a1)).toBeNull();
    expect(await client.hget(keysOf(q).dedup, 'k1')).toBeNull();
    expect(await lanes.cancel(q, a1)).toBe(false);
    expect(await lanes.cancel(q, a2)).toBe(true);
    expect(await shape(q)).toEqual({ ring: ['b'], ringset: ['b'], index: { b: '1' }, cancelled: 2 });
    const st = await lanes.stats(q);
    expect(st).toMatchObject({ pending: 1, totals: { submitted: 3, cancelled: 2, completed: 0 } });
    // The dedup key is free again: a new submit under it is admitted.
    expect(await lanes.submit(q, 'a', 9, { dedupKey: 'k1' })).not.toBe(a1);
  });

  it('cancel removes scheduled and dead jobs, and refuses active, completed and unknown ones, changing nothing', async () => {
    const q = queues.queue();
    const later = await lanes.submit(q, 'a', 1, { delayMs: 60_000 });
    const doomed = await lanes.submit(q, 'd', 2);
    const held = (await lanes.claim(q))!;
    expect(await lanes.fail(q, doomed, held.attempt, 'boom')).toBe('dead');
    expect(await lanes.cancel(q, later)).toBe(true);
    expect(await lanes.cancel(q, doomed)).toBe(true);
    expect(await lanes.stats(q)).toMatchObject({ scheduled: 0, dead: 0, totals: { cancelled: 2 } });
    const active = await lanes.submit(q, 'a', 3);
    const job = (await lanes.claim(q))!;
    expect(job.id).toBe(active);
    const kept = lanesOn(client, { keepCompletedMs: 60_000 });
    await kept.submit(q, 'c', 4);
    const c = (await kept.claim(q))!;
    await kept.complete(q, c.id, c.attempt);
    const before = await snapshotAll(client);
    expect(await lanes.cancel(q, active)).toBe(false);
    expect(await lanes.cancel(q, c.id)).toBe(false);
    expect(await lanes.cancel(q, 'JOB00000000001')).toBe(false);
    expect(await snapshotAll(client)).toEqual(before);
  });

  it('cancel of the last job of a lane parked by its rate keeps the lane parked (in the ring set, off the ring)', async () => {
    const q = queues.queue();
    await lanes.rate(q, 'a', { max: 1, perMs: 60_000 });
    await lanes.submit(q, 'a', 1);
    const last = await lanes.submit(q, 'a', 2);
    await lanes.claim(q);
    expect(await shape(q)).toMatchObject({ ring: [], ringset: ['a'] });
    expect(await lanes.cancel(q, last)).toBe(true);
    expect(await shape(q)).toMatchObject({ ring: [], ringset: ['a'], index: { a: '0' } });
    // A new job in the parked lane still waits for the window.
    await lanes.submit(q, 'a', 3);
    expect(await lanes.claim(q)).toBeNull();
  });

  it('drain of one lane removes its pending and scheduled jobs in pages, and leaves the other lanes, active and dead jobs', async () => {
    const q = queues.queue();
    await lanes.submitMany(q, [...Array(600)].map((_, i) => ({ group: 'a', payload: i, opts: i % 3 === 0 ? { delayMs: 60_000 } : undefined })));
    await lanes.submitMany(q, [...Array(300)].map((_, i) => ({ group: 'b', payload: i, opts: i % 2 === 0 ? { delayMs: 60_000 } : undefined })));
    const held = (await lanes.claim(q))!;
    const doomed = await lanes.submit(q, 'a', 'doomed', { jobId: undefined });
    expect(held.group).toBe('a');
    const n = await lanes.drain(q, { group: 'a' });
    // 600 - 1 held = 599 pending or scheduled, the doomed one too.
    expect(n).toBe(600);
    expect(await lanes.job(q, doomed)).toBeNull();
    expect(await lanes.job(q, held.id)).toMatchObject({ state: 'active' });
    expect(await shape(q)).toEqual({ ring: ['b'], ringset: ['b'], index: { a: '0', b: '150' }, cancelled: 600 });
    expect(await lanes.stats(q)).toMatchObject({ pending: 150, scheduled: 150, active: 1, totals: { submitted: 901, cancelled: 600 } });
    expect(await lanes.complete(q, held.id, held.attempt)).toBe(true);
    expect((await shape(q)).index).toEqual({ b: '150' });
  });

  it('drain of every lane empties lanes on and off the ring (paused, at a ceiling, parked) and the schedule, in pages', async () => {
    const q = queues.queue();
    const items = [...Array(40)].flatMap((_, g) => [...Array(20)].map((__, i) => ({ group: `g${g}`, payload: i, opts: i === 0 ? { delayMs: 60_000 } : undefined })));
    await lanes.submitMany(q, items);
    await lanes.pause(q, 'g1');
    await lanes.limit(q, 'g2', 1);
    await lanes.rate(q, 'g3', { max: 1, perMs: 60_000 });
    const held: string[] = [];
    for (let i = 0; i < 45; i++) {
      const j = await lanes.claim(q);
      if (j) held.push(j.id);
    }
    const before = await lanes.stats(q);
    expect(before.pending).toBeGreaterThan(600);
    const n = await lanes.drain(q);
    expect(n).toBe(before.pending + before.scheduled);
    const after = await shape(q);
    expect(after.ring).toEqual([]);
    // The parked lane stays in the ring set until its timer; every other lane left it.
    expect(after.ringset).toEqual(['g3']);
    expect(Object.values(after.index).every((d) => d === '0')).toBe(true);
    expect(await lanes.stats(q)).toMatchObject({ pending: 0, scheduled: 0, active: held.length, totals: { cancelled: n } });
    // Lanes come back into service with their next job.
    await lanes.submit(q, 'g5', 'new');
    expect((await lanes.claim(q))!.payload).toBe('new');
  });

  it('drain of every lane on a 100,000-lane queue runs in pages of at most 100 jobs (server time logged, not asserted beyond the mean: the machine is shared)', async () => {
    const q = queues.queue();
    for (let start = 0; start < 100_000; start += 1_000) {
      await lanes.submitMany(q, [...Array(1_000)].map((_, i) => ({ group: `l${start + i}`, payload: 0 })));
    }
    // NOTE: the drain's pages are scripts: functions (FCALL), or EVALSHA where the server has no FUNCTION.
    const evalStats = async (): Promise<[number, number]> => {
      const stats = await client.info('commandstats');
      const m = /cmdstat_fcall:calls=(\d+),usec=(\d+)/.exec(stats) ?? /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(stats)!;
      return [Number(m[1]), Number(m[2])];
    };
    await client.config('SET', 'slowlog-log-slower-than', '5000');
    await client.call('SLOWLOG', 'RESET');
    const [calls0, usec0] = await evalStats();
    const n = await lanes.drain(q);
    const [calls1, usec1] = await evalStats();
    const slow = ((await client.call('SLOWLOG', 'GET', '-1')) as [number, number, number, string[]][])
      .filter((e) => ['evalsha', 'fcall'].includes(String(e[3][0]).toLowerCase()));
    await client.config('SET', 'slowlog-log-slower-than', '10000');
    const pages = calls1 - calls0 - 1;
    // eslint-disable-next-line no-console
    console.log(`drain of 100,000 lanes: ${pages} pages, mean ${Math.round((usec1 - usec0) / pages)} us, ${slow.length} over 5 ms`);
    expect(n).toBe(100_000);
    expect(pages).toBeGreaterThanOrEqual(1_000);
    expect((usec1 - usec0) / pages).toBeLessThan(5_000);
    expect(await shape(q)).toMatchObject({ ring: [], ringset: [], index: {} });
  }, 120_000);

  it('clean removes dead jobs older than olderThanMs, at most limit, counted as cancelled', async () => {
    const q = queues.queue();
    const ids = await lanes.submitMany(q, [...Array(5)].map((_, i) => ({ group: 'a', payload: i })));
    for (const _ of ids) {
      const j = (await lanes.claim(q))!;
      await lanes.fail(q, j.id, j.attempt, 'x');
    }
    expect(await lanes.clean(q, 'dead', { olderThanMs: 3_600_000 })).toBe(0);
    expect(await lanes.clean(q, 'dead', { limit: 2 })).toBe(2);
    expect((await lanes.dead(q)).map((j) => j.id)).toEqual(ids.slice(2));
    expect(await lanes.clean(q, 'dead')).toBe(3);
    expect(await lanes.stats(q)).toMatchObject({ dead: 0, totals: { dead: 5, cancelled: 5 } });
    expect(await client.keys(`${keysOf(q).base}job:*`)).toEqual([]);
  });

  it('clean removes kept completed rows older than olderThanMs, with their kept dedup keys', async () => {
    const q = queues.queue();
    const kept = lanesOn(client, { keepCompletedMs: 60_000 });
    const ids = await kept.submitMany(q, [...Array(4)].map((_, i) => ({ group: 'a', payload: i, opts: { dedupKey: `d${i}` } })));
    for (const _ of ids) {
      const j = (await kept.claim(q))!;
      await kept.complete(q, j.id, j.attempt);
    }
    const pendingOne = await kept.submit(q, 'a', 'stays');
    const t = await serverTimeMs(client);
    await waitPastServerTime(client, t + 5);
    expect(await kept.clean(q, 'completed', { olderThanMs: 3_600_000 })).toBe(0);
    expect(await kept.clean(q, 'completed', { limit: 3 })).toBe(3);
    expect(await kept.clean(q, 'completed')).toBe(1);
    for (const id of ids) expect(await kept.job(q, id)).toBeNull();
    expect(await client.keys(`${keysOf(q).base}kept:*`)).toEqual([]);
    expect(await kept.job(q, pendingOne)).toMatchObject({ state: 'pending' });
    expect((await kept.stats(q)).totals).toMatchObject({ completed: 4, cancelled: 0 });
  });

  it('obliterate deletes every key of the queue and no other; NOT_EMPTY while jobs are active unless forced', async () => {
    const q = queues.queue();
    const other = queues.queue();
    await lanes.submit(other, 'x', 1);
    const otherBefore = await snapshot(client, other);
    await lanes.submitMany(q, [...Array(700)].map((_, i) => ({ group: `g${i % 70}`, payload: i, opts: i % 7 === 0 ? { delayMs: 60_000 } : undefined })));
    await lanes.pause(q, 'g1');
    await lanes.rate(q, 'g2', { max: 1, perMs: 60_000 });
    const j = (await lanes.claim(q))!;
    const before = await snapshotAll(client);
    const err = await lanes.obliterate(q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EchoMqError);
    expect(err).toMatchObject({ code: 'NOT_EMPTY', queue: q });
    expect(await snapshotAll(client)).toEqual(before);
    await lanes.complete(q, j.id, j.attempt);
    await lanes.obliterate(q);
    expect(await client.keys(keysOf(q).pattern())).toEqual([]);
    expect(await snapshot(client, other)).toEqual(otherBefore);
    // forced, with a job active
    await lanes.submit(q, 'a', 1);
    await lanes.claim(q);
    await lanes.obliterate(q, { force: true });
    expect(await client.keys(keysOf(q).pattern())).toEqual([]);
  });
});

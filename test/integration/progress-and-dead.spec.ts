import type IORedis from 'ioredis';
import { engineFixture, snapshotAll } from '../support/engine';
import type { LanesService } from '../../lib/lanes.service';

describe('progress, and fail(..., { dead: true })', () => {
  const engine = engineFixture({ maxAttempts: 5 });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  it('keeps the holder\'s progress on the row (a number, then an object), shown by job(); a stale token changes nothing', async () => {
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', 1);
    expect(await lanes.job(q, id)).not.toHaveProperty('progress');
    const first = (await lanes.claim(q, { leaseMs: 60_000 }))!;
    expect(await lanes.progress(q, id, first.attempt, 0.25)).toBe(true);
    expect((await lanes.job(q, id))!.progress).toBe(0.25);
    expect(await lanes.progress(q, id, first.attempt, { done: 3, of: 4, note: 'ü' })).toBe(true);
    expect((await lanes.job(q, id))!.progress).toEqual({ done: 3, of: 4, note: 'ü' });
    // 64 KiB of JSON is accepted.
    const big = { s: 'x'.repeat(65_536 - '{"s":""}'.length) };
    expect(await lanes.progress(q, id, first.attempt, big)).toBe(true);
    expect(await lanes.release(q, id, first.attempt)).toBe(true);
    const before = await snapshotAll(client);
    expect(await lanes.progress(q, id, first.attempt, 1)).toBe(false);
    expect(await lanes.progress(q, 'JOB00000000001', 1, 1)).toBe(false);
    expect(await snapshotAll(client)).toEqual(before);
    // The next holder sees the last progress reported, and reports its own.
    const second = (await lanes.claim(q))!;
    expect((await lanes.job(q, id))!.progress).toEqual(big);
    // The first holder's token is stale while the second holds the job: its report changes nothing.
    expect(await lanes.progress(q, id, first.attempt, { stale: true })).toBe(false);
    expect((await lanes.job(q, id))!.progress).toEqual(big);
    expect(await lanes.progress(q, id, second.attempt, 1)).toBe(true);
    expect((await lanes.job(q, id))).toMatchObject({ state: 'active', progress: 1 });
  });

  it('dead() lists every dead letter (past a script\'s page and past 1,000), or the page asked for', async () => {
    const q = queues.queue();
    await lanes.submitMany(q, Array.from({ length: 1_200 }, (_, i) => ({ group: `g${i % 7}`, payload: i })));
    for (;;) {
      const { jobs } = await lanes.claimMany(q, 250);
      if (jobs.length === 0) break;
      await Promise.all(jobs.map((j) => lanes.fail(q, j.id, j.attempt, new Error('gone'), { dead: true })));
    }
    expect((await lanes.stats(q)).dead).toBe(1_200);
    const all = await lanes.dead(q);
    expect(all).toHaveLength(1_200);
    expect(new Set(all.map((j) => j.id)).size).toBe(1_200);
    expect((await lanes.dead(q, { offset: 1_000, count: 500 })).map((j) => j.id)).toEqual(all.slice(1_000).map((j) => j.id));
    expect(await lanes.dead(q, { count: 3 })).toHaveLength(3);
  });

  it('fail with { dead: true } dead-letters at once, attempts left or not; without it the job is retried', async () => {
    const q = queues.queue();
    const a = await lanes.submit(q, 'a', 1);
    const b = await lanes.submit(q, 'b', 2);
    const ja = (await lanes.claim(q))!;
    const jb = (await lanes.claim(q))!;
    expect([ja.id, jb.id]).toEqual([a, b]);
    expect(await lanes.fail(q, a, ja.attempt, new Error('never'), { dead: true })).toBe('dead');
    expect(await lanes.fail(q, b, jb.attempt, new Error('again'), { dead: false })).toBe('retry');
    expect(await lanes.job(q, a)).toMatchObject({ state: 'dead', attempt: 1, maxAttempts: 5, lastError: 'never' });
    expect((await lanes.stats(q)).totals).toMatchObject({ dead: 1, retried: 1 });
    // A stale token stays stale with { dead: true }.
    expect(await lanes.fail(q, a, ja.attempt, 'x', { dead: true })).toBe('stale');
  });
});

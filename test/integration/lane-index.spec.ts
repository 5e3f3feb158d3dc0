import IORedis from 'ioredis';
import { drain, engineFixture, keysOf, serverTimeMs, waitPastServerTime } from '../support/engine';
import type { LaneInfo } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import { sameLane } from '../support/lanes';

describe('position, scanLanes, topLanes and stats', () => {
  const engine = engineFixture({ maxAttempts: 2, backoff: { delayMs: 0 } });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  it('position: every pending job\'s `ahead` is the index at which one claimer then serves it (depths 1, 3, 7, 20)', async () => {
    const q = queues.queue();
    const depths: Record<string, number> = { a: 1, b: 3, c: 7, d: 20 };
    // Interleaved submits, so the ring order differs from the names' order.
    const items: { group: string; payload: number }[] = [];
    for (let i = 0; i < 20; i++) for (const g of ['d', 'c', 'b', 'a']) if (i < depths[g]) items.push({ group: g, payload: i });
    const ids = await lanes.submitMany(q, items);
    // Turn the ring a little so the next lane to serve is not the first one submitted.
    const first = (await lanes.claim(q))!;
    await lanes.complete(q, first.id, first.attempt);
    const ahead = new Map<string, number>();
    for (const id of ids) {
      if (id === first.id) continue;
      const p = (await lanes.position(q, id))!;
      expect(p.exact).toBe(true);
      expect(p.ringLength).toBeLessThanOrEqual(4);
      ahead.set(id, p.ahead);
    }
    const served = await drain(lanes, q);
    expect(served).toHaveLength(ids.length - 1);
    served.forEach((job, index) => expect({ id: job.id, ahead: ahead.get(job.id) }).toEqual({ id: job.id, ahead: index }));
    expect(await lanes.position(q, first.id)).toBeNull();
  });

  it('position: not exact where a rate ceiling may park a lane within the count, or scheduled jobs are already due', async () => {
    // A lane the count has serve 8 jobs, whose rate lets it 2: it leaves the ring first.
    const q = queues.queue();
    for (let i = 0; i < 8; i++) await lanes.submitMany(q, [{ group: 'r', payload: i }, { group: 'b', payload: i }]);
    await lanes.rate(q, 'r', { max: 2, perMs: 3_600_000 });
    const target = await lanes.submit(q, 'b', 99);
    expect(await lanes.position(q, target)).toMatchObject({ laneRank: 8, ahead: 16, exact: false });
    const served = await drain(lanes, q);
    expect(served.findIndex((j) => j.id === target)).toBe(10);
    // A rated lane the count has serve one job (a lane on the ring has room for one): still exact.
    const one = queues.queue();
    await lanes.submitMany(one, [{ group: 'r', payload: 0 }, { group: 'b', payload: 0 }, { group: 'b', payload: 1 }]);
    await lanes.rate(one, 'r', { max: 1, perMs: 3_600_000 });
    const second = (await lanes.submit(one, 'b', 2));
    expect(await lanes.position(one, second)).toMatchObject({ laneRank: 2, ahead: 3, exact: true });
    // Delayed jobs already due: the next claim moves them into their lanes first.
    const due = queues.queue();
    await lanes.submitMany(due, [0, 1, 2].map((i) => ({ group: 'a', payload: i })));
    await lanes.submit(due, 'd', 'delayed', { delayMs: 50 });
    await lanes.submit(due, 'd', 0);
    const late = await lanes.submit(due, 'd', 1);
    expect(await lanes.position(due, late)).toMatchObject({ laneRank: 1, exact: true });
    await waitPastServerTime(client, (await serverTimeMs(client)) + 100);
    expect(await lanes.position(due, late)).toMatchObject({ exact: false });
  });

  it('position: rank and ring index; null ring index for a paused or a parked lane; null for other states', async () => {
    const q = queues.queue();
    const [a0, a1, b0, c0] = await lanes.submitMany(q, [
      { group: 'a', payload: 0 }, { group: 'a', payload: 1 }, { group: 'b', payload: 0 }, { group: 'c', payload: 0 },
    ]);
    expect(await lanes.position(q, a1)).toMatchObject({ laneRank: 1, ringIndex: 0, ringLength: 3, ahead: 3, exact: true, estimatedWaitMs: null });
    expect(await lanes.position(q, c0)).toMatchObject({ laneRank: 0, ringIndex: 2, ahead: 2 });
    await lanes.pause(q, 'b');
    expect(await lanes.position(q, b0)).toMatchObject({ laneRank: 0, ringIndex: null, ringLength: 2, exact: false });
    await lanes.limit(q, 'a', 1);
    const held = (await lanes.claim(q))!;
    expect(held.id).toBe(a0);
    expect(await lanes.position(q, a1)).toMatchObject({ laneRank: 0, ringIndex: null, ringLength: 1 });
    expect(await lanes.position(q, a0)).toBeNull();
    expect(await lanes.job(q, a0)).toMatchObject({ state: 'active' });
  });

  it('position: an upper bound past 1,000 ring lanes, and a wait estimate from the completions of the busy spell', async () => {
    const q = queues.queue();
    await lanes.submitMany(q, Array.from({ length: 1_001 }, (_, i) => ({ group: `l${i}`, payload: i })));
    const extra = await lanes.submit(q, 'l500', 'second');
    const p = (await lanes.position(q, extra))!;
    expect(p).toMatchObject({ laneRank: 1, ringIndex: 500, ringLength: 1_001, exact: false, estimatedWaitMs: null });
    expect(p.ahead).toBeGreaterThanOrEqual(1_001);
    expect(p.ahead).toBeLessThanOrEqual(1 + 500 * 2 + 500);
    // Complete some: they count at once (the current second is in the window), and still a second later.
    const [s0, us0] = await client.time();
    const startedAt = Number(s0) * 1000 + Math.floor(Number(us0) / 1000);
    for (let i = 0; i < 30; i++) {
      const j = (await lanes.claim(q))!;
      await lanes.complete(q, j.id, j.attempt);
    }
    // 30 completions since startedAt: the span (first completion -> the read, stretched by 31/30) lies
    // between what passed from the last completion and from before the first.
    const bounds = async (read: () => Promise<number | null>, ahead: number) => {
      const est = (await read())!;
      const [s1, us1] = await client.time();
      const readAt = Number(s1) * 1000 + Math.floor(Number(us1) / 1000);
      expect(est).toBeGreaterThanOrEqual(0);
      expect(est).toBeLessThanOrEqual(Math.ceil((ahead * (readAt - startedAt + 1) * 31) / 30 / 30) + 1);
      return est;
    };
    const now = (await lanes.position(q, extra))!;
    await bounds(async () => now.estimatedWaitMs, now.ahead);
    expect((await lanes.stats(q)).completedPerSec).toBeCloseTo(30 / 60, 5);
    const { time } = { time: await client.time() };
    await waitPastServerTime(client, (Number(time[0]) + 1) * 1000, 3_000);
    const later = (await lanes.position(q, extra))!;
    // A second on, with nothing completed since, the spell is longer and the estimate grows.
    expect(later.estimatedWaitMs!).toBeGreaterThan(now.estimatedWaitMs!);
    await bounds(async () => later.estimatedWaitMs, later.ahead);
    expect((await lanes.stats(q)).completedPerSec).toBeCloseTo(30 / 60, 5);
  });

  it('scanLanes returns every lane of 100,000 at least once while lanes are added and removed during the scan', async () => {
    const q = queues.queue();
    const N = 100_000;
    const all = Array.from({ length: N }, (_, i) => ({ group: `t${i}`, payload: i }));
    for (let i = 0; i < N; i += 10_000) await lanes.submitMany(q, all.slice(i, i + 10_000));
    // Lanes with a setting and no work are lanes too; half of them go away during the scan.
    for (let i = 0; i < 200; i++) await lanes.weight(q, `w${i}`, 2);
    const seen = new Map<string, LaneInfo>();
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const page = await lanes.scanLanes(q, { cursor: cursor ?? undefined, count: 1_000 });
      expect(page.lanes.length).toBeLessThanOrEqual(2_000);
      for (const l of page.lanes) seen.set(l.group, l);
      cursor = page.cursor;
      pages++;
      if (pages === 20) {
        for (let i = 0; i < 100; i++) await lanes.weight(q, `w${i}`, 1);
        await lanes.submitMany(q, Array.from({ length: 500 }, (_, i) => ({ group: `new${i}`, payload: i })));
      }
    } while (cursor);
    expect(pages).toBeGreaterThan(50);
    for (let i = 0; i < N; i++) if (!seen.has(`t${i}`)) throw new Error(`lane t${i} was not returned`);
    for (let i = 100; i < 200; i++) expect(seen.get(`w${i}`)).toMatchObject({ pending: 0, weight: 2 });
    for (const g of seen.keys()) expect(g).toMatch(/^(t|w|new)\d+$/);
    expect(seen.get('t77')).toMatchObject({ group: 't77', pending: 1, active: 0, weight: 1, limit: null, paused: false, inRing: true });
    const stats = await lanes.stats(q);
    expect(stats).toMatchObject({ pending: N + 500, lanes: N + 100 + 500, ringLength: N + 500 });
  });

  it('the index moves a lane\'s score only when its depth crosses a power of two, and topLanes still reads exact depths', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    const score = async (g: string) => client.zscore(k.index, g);
    for (let i = 0; i < 5; i++) await lanes.submit(q, 'deep', i);
    // Written at depths 1, 2 and 4; the fifth job stays in the band [4, 8).
    expect(await score('deep')).toBe('4');
    await lanes.submitMany(q, [{ group: 'deep', payload: 5 }, { group: 'deep', payload: 6 }, { group: 'deep', payload: 7 }]);
    expect(await score('deep')).toBe('8');
    await lanes.submit(q, 'mid', 0);
    await lanes.submit(q, 'mid', 1);
    await lanes.submit(q, 'mid', 2);
    expect(await score('mid')).toBe('2');
    const claimed = (await lanes.claimMany(q, 2)).jobs;
    expect(claimed.map((j) => j.group).sort()).toEqual(['deep', 'mid']);
    // deep 8 -> 7 left its band, mid 3 -> 2 did not.
    expect([await score('deep'), await score('mid')]).toEqual(['7', '2']);
    expect((await lanes.topLanes(q, 2)).map((l) => [l.group, l.pending])).toEqual([['deep', 7], ['mid', 2]]);
    // A lane the index ranks in the same band as a deeper one is still put in its place by its depth.
    await lanes.submit(q, 'wide', 0);
    await lanes.submit(q, 'wide', 1);
    await lanes.submit(q, 'wide', 2);
    expect(await score('wide')).toBe('2');
    expect((await lanes.topLanes(q, 2)).map((l) => [l.group, l.pending])).toEqual([['deep', 7], ['wide', 3]]);
  });

  it('topLanes is exact when more lanes share the last band than one read counts (2,400 lanes of depth 2, 10 of depth 3)', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    const items: { group: string; payload: number }[] = [];
    // The deeper lanes sort first by name, so the index's reverse order of a band lists them last.
    for (let g = 0; g < 2400; g++) for (let i = 0; i < 2; i++) items.push({ group: `z-${String(g).padStart(4, '0')}`, payload: i });
    for (let g = 0; g < 10; g++) for (let i = 0; i < 2; i++) items.push({ group: `a-${g}`, payload: i });
    await lanes.submitMany(q, items);
    // A third job each, in a call of its own: 2 -> 3 stays in the band [2, 4), so the score stays 2.
    await lanes.submitMany(q, Array.from({ length: 10 }, (_, g) => ({ group: `a-${g}`, payload: 2 })));
    expect(await client.zscore(k.index, 'a-0')).toBe('2');
    const top = await lanes.topLanes(q, 10);
    expect(top.map((l) => [l.group, l.pending])).toEqual(Array.from({ length: 10 }, (_, g) => [`a-${g}`, 3]));
    // Past the band: the 12 deepest are the 10 of depth 3, then the first two of depth 2 by name.
    expect((await lanes.topLanes(q, 12)).map((l) => l.group).slice(10)).toEqual(['z-0000', 'z-0001']);
  });

  it('topLanes agrees with a full sort of lanes() by pending', async () => {
    const q = queues.queue();
    const items: { group: string; payload: number }[] = [];
    for (let g = 0; g < 300; g++) for (let i = 0; i < (g * 7919) % 23; i++) items.push({ group: `g${g}`, payload: i });
    await lanes.submitMany(q, items);
    for (let i = 0; i < 40; i++) {
      const j = (await lanes.claim(q))!;
      await lanes.complete(q, j.id, j.attempt);
    }
    const sorted = (await lanes.lanes(q)).map((l) => l.pending).sort((x, y) => y - x);
    for (const count of [1, 10, 100, 1_000]) {
      const top = await lanes.topLanes(q, count);
      expect(top.map((l) => l.pending)).toEqual(sorted.slice(0, count));
      for (const l of top) expect(await lanes.lane(q, l.group)).toEqual(sameLane(l));
    }
  });

  it('stats: totals equal what the test did, across LanesService instances; counts now equal the keys', async () => {
    const q = queues.queue();
    const other = engine.lanes;
    await lanes.submitMany(q, Array.from({ length: 30 }, (_, i) => ({ group: `s${i % 3}`, payload: i })));
    await other.submit(q, 's0', 'late', { delayMs: 60_000 });
    let completed = 0;
    let retried = 0;
    let dead = 0;
    for (let i = 0; i < 10; i++) {
      const j = (await lanes.claim(q))!;
      await lanes.complete(q, j.id, j.attempt);
      completed++;
    }
    for (let i = 0; i < 4; i++) {
      const j = (await lanes.claim(q))!;
      const outcome = await other.fail(q, j.id, j.attempt, 'x');
      if (outcome === 'retry') retried++;
      if (outcome === 'dead') dead++;
    }
    const leased = (await lanes.claimMany(q, 3, { leaseMs: 20 })).jobs;
    await waitPastServerTime(client, leased[0].leaseUntil);
    const reaped = await lanes.reap(q);
    expect(reaped).toBe(3);
    await lanes.pause(q, 's2');
    const s = await lanes.stats(q);
    const k = keysOf(q);
    const pendingNow = (await Promise.all(['s0', 's1', 's2'].map((g) => client.zcard(k.lane(g))))).reduce((a, b) => a + b, 0);
    // Deaths come from fail and from reaps of jobs on their last attempt; nothing was retried from the dead set.
    expect(dead).toBeGreaterThan(0);
    const deadNow = await client.zcard(k.dead);
    expect(deadNow).toBeGreaterThanOrEqual(dead);
    expect(s).toEqual({
      totals: { submitted: 31, completed, retried, dead: deadNow, reaped, cancelled: 0 },
      pending: pendingNow, scheduled: 1, active: 0, dead: await client.zcard(k.dead),
      lanes: 3, ringLength: await client.llen(k.ring), pausedLanes: 1, paused: false, limit: null, fairness: { by: 'jobs' }, shards: 1, shardRingLengths: [await client.llen(k.ring)],
      completedPerSec: s.completedPerSec,
      oldestWaitMs: s.oldestWaitMs, oldestLane: s.oldestLane,
    });
    // The oldest head is one of the lanes holding pending jobs, and as old as the oldest of theirs.
    const rows = (await lanes.lanes(q)).filter((l) => l.headWaitMs !== null);
    expect(rows.map((l) => l.group)).toContain(s.oldestLane);
    expect(s.oldestWaitMs!).toBeGreaterThanOrEqual(Math.max(...rows.map((l) => l.headWaitMs!)) - 50);
    expect(s.pending + s.scheduled + s.active + s.dead + s.totals.completed).toBe(31);
  });
});

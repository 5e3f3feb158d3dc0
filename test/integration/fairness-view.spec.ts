import * as fc from 'fast-check';
import IORedis from 'ioredis';
import { EchoMqError } from '../../lib/errors';
import type { LaneJob } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import { mintJobId } from '../../lib/ids/job-id';
import { engineFixture, keysOf, serverTimeMs, waitPastServerTime } from '../support/engine';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Seeing fairness: stats().oldestWaitMs / oldestLane and oldestLanes() (the lane index's head entries,
 * lua/includes/headBack.lua and oldestHeads.lua), and shares() (lua/includes/servedShare.lua,
 * lua/laneShares-4.lua), each against what the lanes themselves say.
 */
describe('seeing fairness: the oldest heads and the shares served', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  /** The lanes' own head ages (lanes(), one script), longest first, with the server time around the read. */
  const headsOf = async (q: string) => {
    const rows = (await lanes.lanes(q)).filter((l) => l.headWaitMs !== null);
    return rows.map((l) => ({ group: l.group, headWaitMs: l.headWaitMs! })).sort((a, b) => b.headWaitMs - a.headWaitMs);
  };

  const finish = async (q: string, jobs: LaneJob[]) => {
    for (const j of jobs) expect(await lanes.complete(q, j.id, j.attempt)).toBe(true);
  };

  describe('oldestWaitMs, oldestLane, oldestLanes', () => {
    it('are null on a queue with nothing pending, and name the lane whose head has waited longest', async () => {
      const q = queues.queue();
      expect(await lanes.stats(q)).toMatchObject({ oldestWaitMs: null, oldestLane: null });
      expect(await lanes.oldestLanes(q, 5)).toEqual([]);
      await lanes.submit(q, 'first', 1);
      const t1 = await serverTimeMs(client);
      await waitPastServerTime(client, t1 + 60);
      await lanes.submit(q, 'second', 2);
      await sleep(5);
      await lanes.submit(q, 'first', 3);
      await waitPastServerTime(client, t1 + 120);
      const s = await lanes.stats(q);
      expect(s.oldestLane).toBe('first');
      expect(s.oldestWaitMs!).toBeGreaterThanOrEqual(120);
      const oldest = await lanes.oldestLanes(q, 5);
      expect(oldest.map((o) => o.group)).toEqual(['first', 'second']);
      expect(oldest[0].headWaitMs - oldest[1].headWaitMs).toBeGreaterThanOrEqual(50);

      // Its head served, 'first' has a head submitted after second's: second is now the oldest.
      const job = (await lanes.claim(q))!;
      expect(job.group).toBe('first');
      expect((await lanes.stats(q)).oldestLane).toBe('second');
      await lanes.complete(q, job.id, job.attempt);
      await finish(q, (await lanes.claimMany(q, 10)).jobs);
      expect(await lanes.stats(q)).toMatchObject({ oldestWaitMs: null, oldestLane: null });
    });

    it('keep counting a paused lane, and count a retry from when it came back', async () => {
      const q = queues.queue();
      await lanes.submit(q, 'held', 1);
      await lanes.pause(q, 'held', { reason: 'maintenance' });
      // NOTE: a head's age runs from its id's mint time (ms): two submits in the same ms would tie,
      // and a tie goes to the name that sorts first ('busy').
      await waitPastServerTime(client, (await serverTimeMs(client)) + 2);
      await lanes.submit(q, 'busy', 1);
      const t = await serverTimeMs(client);
      await waitPastServerTime(client, t + 80);
      expect((await lanes.stats(q)).oldestLane).toBe('held');
      // 'busy' fails once: back in its lane now, so its head is younger than held's.
      const j = (await lanes.claim(q))!;
      expect(await lanes.fail(q, j.id, j.attempt, 'x', { maxAttempts: 3, backoff: { delayMs: 0 } })).toBe('retry');
      const oldest = await lanes.oldestLanes(q, 2);
      expect(oldest.map((o) => o.group)).toEqual(['held', 'busy']);
      expect(oldest[1].headWaitMs).toBeLessThan(oldest[0].headWaitMs);
    });

    it('a head entry left behind by a lane emptied while its job is active is removed by the read that finds it', async () => {
      const q = queues.queue();
      const k = keysOf(q);
      await lanes.submit(q, 'a', 1);
      const j = (await lanes.claim(q))!;
      expect(await client.zscore(k.index, '{h}a')).not.toBeNull();
      expect(await lanes.stats(q)).toMatchObject({ oldestLane: null, oldestWaitMs: null });
      expect(await client.zscore(k.index, '{h}a')).toBeNull();
      await lanes.complete(q, j.id, j.attempt);
      expect(await client.exists(k.index)).toBe(0);
    });

    it('agree with the lanes themselves after every step of random plans (fast-check)', async () => {
      const GROUPS = ['g0', 'g1', 'g2', 'g3'];
      const op = fc.oneof(
        fc.record({ kind: fc.constant('submit' as const), g: fc.integer({ min: 0, max: 3 }), own: fc.boolean(), delayMs: fc.constantFrom(0, 0, 0, 20) }),
        fc.record({ kind: fc.constant('claim' as const), n: fc.integer({ min: 1, max: 3 }) }),
        fc.record({ kind: fc.constantFrom('complete' as const, 'retry' as const, 'release' as const) }),
        fc.record({ kind: fc.constantFrom('pause' as const, 'resume' as const, 'cancel' as const), g: fc.integer({ min: 0, max: 3 }) }),
        fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 30 }) }),
      );
      let plans = 0;
      await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40, size: 'max' }), async (plan) => {
        plans++;
        const q = queues.queue();
        const held: LaneJob[] = [];
        let n = 0;
        // A caller's own ids are minted ids too, minted before their submit (here, before the plan ran).
        const own = [...Array(plan.length).keys()].map(() => mintJobId());
        await sleep(5);
        for (const step of plan) {
          if (step.kind === 'submit') {
            const id = step.own ? own[n] : undefined;
            await lanes.submit(q, GROUPS[step.g], n++, { ...(id ? { jobId: id } : {}), delayMs: step.delayMs });
          } else if (step.kind === 'claim') {
            await lanes.promote(q);
            held.push(...(await lanes.claimMany(q, step.n)).jobs);
          } else if (step.kind === 'complete' || step.kind === 'retry' || step.kind === 'release') {
            const j = held.shift();
            if (!j) continue;
            if (step.kind === 'complete') await lanes.complete(q, j.id, j.attempt);
            else if (step.kind === 'retry') await lanes.fail(q, j.id, j.attempt, 'x', { maxAttempts: 10, backoff: { delayMs: 0 } });
            else await lanes.release(q, j.id, j.attempt);
          } else if (step.kind === 'pause') {
            await lanes.pause(q, GROUPS[step.g]);
          } else if (step.kind === 'resume') {
            await lanes.resume(q, GROUPS[step.g]);
          } else if (step.kind === 'cancel') {
            const [id] = await lanes.peek(q, GROUPS[step.g], 1);
            if (id) await lanes.cancel(q, id);
          } else {
            await sleep((step as { ms: number }).ms);
          }
          // What the index says against every lane's own head (read just before: the index read is later, so older by the gap).
          const before = await serverTimeMs(client);
          const heads = await headsOf(q);
          const s = await lanes.stats(q);
          const oldest = await lanes.oldestLanes(q, 4);
          const gap = (await serverTimeMs(client)) - before + 2;
          if (heads.length === 0) {
            expect({ step, s: [s.oldestLane, s.oldestWaitMs], oldest }).toEqual({ step, s: [null, null], oldest: [] });
            continue;
          }
          const top = heads[0].headWaitMs;
          expect({ step, ok: s.oldestWaitMs! >= top - 1 && s.oldestWaitMs! <= top + gap }).toEqual({ step, ok: true });
          const named = heads.find((h) => h.group === s.oldestLane);
          expect({ step, ok: named !== undefined && named.headWaitMs >= top - gap }).toEqual({ step, ok: true });
          expect({ step, lanes: oldest.map((o) => o.group).sort() }).toEqual({ step, lanes: heads.map((h) => h.group).sort() });
        }
        await queues.dropAll(client);
      }), { numRuns: 25, seed: 20261206 });
      expect(plans).toBeGreaterThanOrEqual(25);
    }, 120_000);

    it('a queue indexed before head entries existed gains them at boot (adoptLanes), then reads right', async () => {
      const q = queues.queue();
      const k = keysOf(q);
      await lanes.submitMany(q, [{ group: 'x', payload: 1 }, { group: 'y', payload: 2 }, { group: 'y', payload: 3 }]);
      await lanes.adoptLanes([q]);
      // As 0.2 left it: lanes indexed by depth, no head entries, adoption done.
      await client.zrem(k.index, '{h}x', '{h}y');
      await client.hdel(k.meta, 'heads');
      await lanes.adoptLanes([q]);
      expect(await client.hget(k.meta, 'heads')).toBe('done');
      expect(await client.zscore(k.index, '{h}x')).toBe('1000000000000');
      const s = await lanes.stats(q);
      expect(s.oldestLane).toBe('x');
      // The read raised the bounds to the heads' mint times.
      expect(Number(await client.zscore(k.index, '{h}x'))).toBeGreaterThan(1_700_000_000_000);
    });

    it('stats() past readStats\' budget goes on where it stopped: 2,000 heads at the floor, each checked once (20 calls of 100)', async () => {
      const q = queues.queue();
      const k = keysOf(q);
      await lanes.submitMany(q, [...Array(2_000).keys()].map((i) => ({ group: `l${i}`, payload: i })));
      const flat = await client.zrange(k.index, 0, -1);
      await client.zadd(k.index, 'XX', ...flat.filter((m) => m.startsWith('{h}')).flatMap((m) => ['1000000000000', m]));
      const fcalls = (text: string) => Number(/cmdstat_(?:fcall|evalsha):calls=(\d+)/.exec(text)?.[1] ?? 0);
      const calls = await client.info('commandstats');
      expect((await lanes.stats(q)).oldestLane).toBe('l0');
      expect(fcalls(await client.info('commandstats')) - fcalls(calls)).toBe(20);
    });

    it('check few heads once the bounds are raised: 2,000 lanes, then one read of the oldest', async () => {
      const q = queues.queue();
      const k = keysOf(q);
      await lanes.submitMany(q, [...Array(2_000).keys()].map((i) => ({ group: `l${i}`, payload: i })));
      // Bounds at the floor (as adoption leaves them): the first read checks them all, in calls of 100.
      const flat = await client.zrange(k.index, 0, -1);
      await client.zadd(k.index, 'XX', ...flat.filter((m) => m.startsWith('{h}')).flatMap((m) => ['1000000000000', m]));
      const first = await lanes.oldestLanes(q, 1);
      expect(first[0].group).toBe('l0');
      // Now each bound is its head's mint time: the next read stops after the first few.
      const calls = await client.info('commandstats');
      const fcalls = (text: string) => Number(/cmdstat_(?:fcall|evalsha):calls=(\d+)/.exec(text)?.[1] ?? 0);
      await lanes.oldestLanes(q, 1);
      expect(fcalls(await client.info('commandstats')) - fcalls(calls)).toBe(1);
      expect((await lanes.stats(q)).oldestLane).toBe('l0');
    });
  });

  describe('shares()', () => {
    it('counts what each lane was served in the window, its entitlement among the backlogged lanes, and Jain', async () => {
      const q = queues.queue();
      await lanes.submitMany(q, [
        ...[...Array(30).keys()].map((i) => ({ group: 'flood', payload: i })),
        ...[...Array(10).keys()].map((i) => ({ group: 'light', payload: i })),
      ]);
      await lanes.weight(q, 'flood', 3);
      // Claims one at a time: flood and light alternate (light has 10, so 10 each), then flood alone.
      for (let i = 0; i < 24; i++) await finish(q, [(await lanes.claim(q))!]);
      const shares = await lanes.shares(q);
      expect(shares.windowMs).toBe(60_000);
      expect(shares.lanes.map((l) => [l.group, l.served, l.work, l.weight, l.backlogged])).toEqual([
        ['flood', 14, 14, 3, true], ['light', 10, 10, 1, false]]);
      // Only flood is backlogged now: it is entitled to all of the service; light (empty) to none.
      expect(shares.lanes.map((l) => l.entitled)).toEqual([1, 0]);
      // Jain needs two backlogged lanes.
      expect(shares.jain).toBeNull();
      expect(shares.lanes.every((l) => l.tenant === null)).toBe(true);
    });

    it('Jain of backlogged lanes that were all served nothing (a stalled queue) is 1: served alike', async () => {
      const q = queues.queue();
      await lanes.submitMany(q, ['a', 'b', 'c'].map((group) => ({ group, payload: 0 })));
      const s = await lanes.shares(q);
      expect(s.lanes).toEqual([]);
      expect(s.jain).toBe(1);
    });

    it('Jain is 1 when backlogged lanes got their weights\' shares, and falls when one is starved', async () => {
      const q = queues.queue();
      await lanes.submitMany(q, ['a', 'b', 'c'].flatMap((group) => [...Array(20).keys()].map((i) => ({ group, payload: i }))));
      await lanes.weight(q, 'a', 2);
      // wclaim serves a 2 heads per turn: a twice b's and c's share, all three still backlogged.
      for (let i = 0; i < 6; i++) await finish(q, await lanes.wclaim(q));
      const fair = await lanes.shares(q);
      expect(fair.lanes.map((l) => [l.group, l.served])).toEqual([['a', 4], ['b', 2], ['c', 2]]);
      expect(fair.lanes.map((l) => l.entitled)).toEqual([0.5, 0.25, 0.25]);
      expect(fair.jain).toBeCloseTo(1, 6);
      // c paused: a and b go on, c's head ages with nothing served; Jain over the three backlogged falls.
      await lanes.pause(q, 'c');
      for (let i = 0; i < 8; i++) await finish(q, await lanes.wclaim(q));
      const skewed = await lanes.shares(q);
      expect(skewed.lanes.find((l) => l.group === 'c')).toMatchObject({ served: 2, backlogged: true });
      // x = served / weight: a 20/2 = 10 (it served 4 + 2 * (8 * 2/3)...), computed from what the read says.
      const xs = skewed.lanes.filter((l) => l.backlogged).map((l) => l.served / l.weight);
      const expected = xs.reduce((s, x) => s + x, 0) ** 2 / (xs.length * xs.reduce((s, x) => s + x * x, 0));
      expect(skewed.jain).toBeCloseTo(expected, 5);
      expect(skewed.jain!).toBeLessThan(0.95);
    });

    it('a lane starved in the window still counts in Jain (it has the oldest head), and cost fairness counts work', async () => {
      const q = queues.queue();
      await lanes.fairness(q, { by: 'cost' });
      await lanes.submitMany(q, [
        ...[...Array(10).keys()].map((i) => ({ group: 'big', payload: i, opts: { cost: 10 } })),
        ...[...Array(10).keys()].map((i) => ({ group: 'small', payload: i, opts: { cost: 1 } })),
        { group: 'starved', payload: 0 },
      ]);
      await lanes.pause(q, 'starved');
      for (let i = 0; i < 12; i++) await finish(q, [(await lanes.claim(q))!]);
      const s = await lanes.shares(q, { count: 2 });
      expect(s.lanes.map((l) => l.group)).toEqual(['small', 'big']);
      const big = s.lanes.find((l) => l.group === 'big')!;
      expect(big.work).toBe(big.served * 10);
      expect(s.lanes.find((l) => l.group === 'small')!.work).toBe(s.lanes.find((l) => l.group === 'small')!.served);
      // Jain over the backlogged of big and small (work ÷ weight) and starved (0, found by its old head):
      // without starved it would be 1 for one lane, or higher for two.
      const xs = [...s.lanes.filter((l) => l.backlogged).map((l) => l.work), 0];
      const expected = xs.reduce((a, x) => a + x, 0) ** 2 / (xs.length * xs.reduce((a, x) => a + x * x, 0));
      expect(s.jain).toBeCloseTo(expected, 5);
      expect(s.jain!).toBeLessThanOrEqual(0.5 + 1e-9);
    });

    it('time fairness counts the time each job took (its end corrects the claim\'s estimate), and a reaped lease its lease', async () => {
      const q = queues.queue();
      await lanes.fairness(q, { by: 'time' });
      await lanes.submitMany(q, ['slow', 'fast'].flatMap((group) => [...Array(4).keys()].map((i) => ({ group, payload: i }))));
      const held: Record<string, number> = { slow: 0, fast: 0 };
      const count: Record<string, number> = { slow: 0, fast: 0 };
      for (let job = await lanes.claim(q); job; job = await lanes.claim(q)) {
        const t0 = Date.now();
        await sleep(job.group === 'slow' ? 60 : 4);
        await finish(q, [job]);
        held[job.group] += Date.now() - t0;
        count[job.group] += 1;
      }
      await lanes.submit(q, 'lost', 0);
      const lost = (await lanes.claim(q, { leaseMs: 100 }))!;
      expect(lost.group).toBe('lost');
      await sleep(150);
      expect(await lanes.reap(q)).toBe(1);
      const s = await lanes.shares(q, { count: 3 });
      const of = (g: string) => s.lanes.find((l) => l.group === g)!;
      // The server's time from claim to ack holds the client's (taken inside it) and a round trip or two.
      for (const g of ['slow', 'fast']) {
        expect(of(g).served).toBe(4);
        expect(of(g).work).toBeGreaterThanOrEqual(held[g] - 2 * count[g]);
        expect(of(g).work).toBeLessThanOrEqual(held[g] + 10 * count[g]);
      }
      // A reaped lease is charged the lease: its deadline less its claim, both the server's.
      expect(of('lost').work).toBe(100);
    });

    it('under tenants: a lane is entitled to its tenant\'s share of the ring times its share within the tenant', async () => {
      const q = queues.queue();
      await lanes.submitMany(q, [
        ...['u1', 'u2', 'u3', 'u4'].flatMap((group) => [...Array(10).keys()].map((i) => ({ group, payload: i, opts: { tenant: 'crowd' } }))),
        ...[...Array(10).keys()].map((i) => ({ group: 'solo', payload: i, opts: { tenant: 'lone' } })),
        ...[...Array(10).keys()].map((i) => ({ group: 'free', payload: i })),
      ]);
      await lanes.tenantWeight(q, 'crowd', 2);
      for (let i = 0; i < 12; i++) await finish(q, [(await lanes.claim(q))!]);
      const s = await lanes.shares(q, { count: 10 });
      const of = (g: string) => s.lanes.find((l) => l.group === g)!;
      // Queue entries: crowd (weight 2), lone (1), free (1): 4 in all.
      expect(of('solo')).toMatchObject({ tenant: 'lone', entitled: 0.25 });
      expect(of('free')).toMatchObject({ tenant: null, entitled: 0.25 });
      for (const g of ['u1', 'u2', 'u3', 'u4'].filter((x) => s.lanes.some((l) => l.group === x))) {
        expect(of(g)).toMatchObject({ tenant: 'crowd' });
        expect(of(g).entitled).toBeCloseTo(0.5 / 4, 6);
      }
      // Each of the three queue entries got a third of the 12 claims.
      expect(of('solo').served).toBe(4);
      expect(of('free').served).toBe(4);
    });

    it('counts what calls of many lanes served (one bucket write per call), adding to what the bucket held', async () => {
      const q = queues.queue();
      await lanes.fairness(q, { by: 'cost' });
      await lanes.submitMany(q, ['a', 'b', 'c', 'd', 'e'].flatMap((group, g) =>
        [...Array(10).keys()].map((i) => ({ group, payload: i, opts: { cost: g + 1 } }))));
      // Cost fairness serves a (cost 1) most; two calls of 12 land in the same bucket (or the next).
      const first = (await lanes.claimMany(q, 12)).jobs;
      const second = (await lanes.claimMany(q, 12)).jobs;
      await finish(q, [...first, ...second]);
      const byLane = new Map<string, number>();
      for (const j of [...first, ...second]) byLane.set(j.group, (byLane.get(j.group) ?? 0) + 1);
      const s = await lanes.shares(q, { count: 5 });
      expect(Object.fromEntries(s.lanes.map((l) => [l.group, l.served]))).toEqual(Object.fromEntries(byLane));
      for (const l of s.lanes) expect(l.work).toBe(l.served * (l.group.charCodeAt(0) - 96));
    });

    it('Jain is over every backlogged lane while there are at most 1,000, not only those listed', async () => {
      const q = queues.queue();
      await lanes.submitMany(q, [...Array(300).keys()].flatMap((i) => [0, 1].map((n) => ({ group: `lane-${i}`, payload: n }))));
      // 20 lanes served one job each; the other 280 backlogged lanes served nothing.
      const served: LaneJob[] = (await lanes.claimMany(q, 20)).jobs;
      expect(new Set(served.map((j) => j.group)).size).toBe(20);
      await finish(q, served);
      const s = await lanes.shares(q, { count: 10 });
      expect(s.lanes).toHaveLength(10);
      // (Σx)² ÷ (n·Σx²) over the 300: 20² ÷ (300 × 20).
      expect(s.jain).toBeCloseTo(400 / 6000, 6);
    });

    it('lists the lanes served most in the window, among many lanes served less in each bucket', async () => {
      const q = queues.queue();
      const k = keysOf(q);
      const bucket = Math.floor((await serverTimeMs(client)) / 10_000);
      // Five whole buckets of the window: in each, 10 steady lanes served 5 times and 300 lanes (others
      // each bucket) served once; one lane served 20 times in one bucket only.
      for (let b = 1; b <= 5; b++) {
        const args: (string | number)[] = [];
        for (let i = 0; i < 10; i++) args.push(5, `steady-${i}`);
        for (let i = 0; i < 300; i++) args.push(1, `light-${b}-${i}`);
        if (b === 3) args.push(20, 'burst');
        await client.zadd(`${k.base}served:${bucket - b}`, ...args);
      }
      const s = await lanes.shares(q, { count: 10 });
      expect(s.lanes.map((l) => [l.group, l.served])).toEqual([...Array(10).keys()].map((i) => [`steady-${i}`, 25]));
      const more = await lanes.shares(q, { count: 11 });
      expect(more.lanes.map((l) => l.group)).toEqual([...Array(10).keys()].map((i) => `steady-${i}`).concat('burst'));
    });

    it('counts only the last 60 s: a bucket older than the window is left out, the one it straddles in part', async () => {
      const q = queues.queue();
      const k = keysOf(q);
      await lanes.submit(q, 'now', 1);
      await finish(q, [(await lanes.claim(q))!]);
      const now = await serverTimeMs(client);
      const bucket = Math.floor(now / 10_000);
      // 8 buckets ago: past the window. 6 ago: the part of it after now - 60 s counts.
      await client.zadd(`${k.base}served:${bucket - 8}`, '1000', 'old');
      await client.zadd(`${k.base}served:${bucket - 6}`, '1000', 'edge');
      const s = await lanes.shares(q);
      const after = await serverTimeMs(client);
      expect(s.lanes.some((l) => l.group === 'old')).toBe(false);
      const edge = s.lanes.find((l) => l.group === 'edge');
      const inside = (t: number) => Math.max(0, ((bucket - 5) * 10_000 - (t - 60_000)) / 10_000) * 1000;
      if (edge) {
        expect(edge.served).toBeGreaterThanOrEqual(Math.floor(inside(after)) - 1);
        expect(edge.served).toBeLessThanOrEqual(Math.ceil(inside(now)) + 1);
      } else {
        expect(inside(now)).toBeLessThan(1);
      }
      expect(s.lanes.find((l) => l.group === 'now')).toMatchObject({ served: 1 });
      // Each bucket expires by itself.
      const ttl = await client.pttl(`${k.base}served:${bucket}`);
      expect(ttl).toBeGreaterThan(60_000);
      expect(ttl).toBeLessThanOrEqual(80_000);
    });

    it('a bucket written again after obliterate gets its TTL again', async () => {
      const q = queues.queue();
      const k = keysOf(q);
      const serve = async () => {
        await lanes.submit(q, 'a', 1);
        const before = Math.floor((await serverTimeMs(client)) / 10_000);
        await finish(q, [(await lanes.claim(q))!]);
        const after = Math.floor((await serverTimeMs(client)) / 10_000);
        return [...new Set([before, after])].map((b) => `${k.base}served:${b}`);
      };
      await serve();
      await lanes.obliterate(q, { force: true });
      const buckets = await serve();
      const ttls = await Promise.all(buckets.map((key) => client.pttl(key)));
      const present = ttls.filter((t) => t !== -2);
      expect(present.length).toBeGreaterThan(0);
      for (const ttl of present) {
        expect(ttl).toBeGreaterThan(60_000);
        expect(ttl).toBeLessThanOrEqual(80_000);
      }
    });

    it('refuses a count out of range, naming it, and writes nothing', async () => {
      const q = queues.queue();
      for (const count of [0, 1001, 1.5, '3']) {
        const err = await lanes.shares(q, { count: count as number }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(EchoMqError);
        expect((err as EchoMqError).message).toContain('opts.count');
      }
      for (const count of [0, 1001]) {
        const err = await lanes.oldestLanes(q, count).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(EchoMqError);
        expect((err as EchoMqError).message).toContain('count');
      }
      expect(await client.keys(`${keysOf(q).base}*`)).toEqual([]);
    });
  });
});

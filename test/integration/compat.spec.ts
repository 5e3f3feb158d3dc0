import type IORedis from 'ioredis';
import { mintJobId } from '../../lib/ids/job-id';
import type { LanesService } from '../../lib/lanes.service';
import { engineFixture, keysOf, serverTimeMs, waitPastServerTime } from '../support/engine';
import { ForeignWriter } from '../support/foreign-writer';
import { lanesOn } from '../support/lanes';

/**
 * compat: 'echomq' — a second writer that behaves as the EchoMQ reference's scripts do (no ring set,
 * LPOS/RPUSH on, LREM off) interleaved with ours. Each case runs once with the default mode, where
 * it shows the fault that issue 14 reports, and once in compat mode, where every invariant holds.
 */
describe('sharing a queue with the EchoMQ reference (compat mode)', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let plain: LanesService;
  let compat: LanesService;
  let foreign: ForeignWriter;
  beforeAll(() => {
    client = engine.client;
    plain = engine.lanes;
    compat = lanesOn(client, { compat: 'echomq' });
    foreign = new ForeignWriter(client);
  });

  const modes = () => [['default', plain], ['compat', compat]] as const;
  const ring = (q: string) => client.lrange(keysOf(q).ring, 0, -1);

  it('stranded lane: after the other writer takes a lane off the ring, our next submit puts it back', async () => {
    const seen: Record<string, unknown> = {};
    for (const [mode, lanes] of modes()) {
      const q = queues.queue();
      await lanes.submit(q, 'a', { i: 1 });
      const taken = await foreign.claim(q); // the lane is empty now: the other writer LREMs it
      expect(taken?.group).toBe('a');
      await lanes.submit(q, 'a', { i: 2 });
      seen[mode] = { ring: await ring(q), claimed: (await lanes.claim(q))?.payload ?? null };
    }
    // Today (default): the ring set still names the lane, so the submit does not ring it: stranded.
    expect(seen.default).toEqual({ ring: [], claimed: null });
    expect(seen.compat).toEqual({ ring: ['a'], claimed: { i: 2 } });
  });

  it('stranded lane: one left off the ring before compat was on comes back with a release of one of its jobs', async () => {
    const q = queues.queue();
    await compat.submitMany(q, [{ group: 'a', payload: 1 }, { group: 'a', payload: 2 }]);
    const held = (await compat.claim(q))!;
    // A writer without compat took the lane off the ring while it still had work: stranded.
    await client.lrem(keysOf(q).ring, 0, 'a');
    expect(await compat.lane(q, 'a')).toMatchObject({ pending: 1, inRing: false });
    expect(await compat.release(q, held.id, held.attempt)).toBe(true);
    expect(await ring(q)).toEqual(['a']);
  });

  it('stranded lane: a lane the other writer paused comes back with our resume', async () => {
    const seen: Record<string, unknown> = {};
    for (const [mode, lanes] of modes()) {
      const q = queues.queue();
      await lanes.submit(q, 'a', { i: 1 });
      await foreign.pause(q, 'a');
      await lanes.resume(q, 'a');
      seen[mode] = await ring(q);
    }
    expect(seen).toEqual({ default: [], compat: ['a'] });
  });

  it('paused lane: our pause takes a lane the other writer put on the ring off it, so its claims hold the pause', async () => {
    const seen: Record<string, unknown> = {};
    for (const [mode, lanes] of modes()) {
      const q = queues.queue();
      await foreign.enqueue(q, 'a', mintJobId(), '{"i":1}');
      await lanes.pause(q, 'a');
      seen[mode] = { ring: await ring(q), foreignClaim: (await foreign.claim(q))?.group ?? null };
    }
    expect(seen.default).toEqual({ ring: ['a'], foreignClaim: 'a' }); // today: a paused lane is served
    expect(seen.compat).toEqual({ ring: [], foreignClaim: null });
  });

  it('ceiling: our limit takes a lane the other writer put on the ring off it, so active never exceeds it', async () => {
    const seen: Record<string, unknown> = {};
    for (const [mode, lanes] of modes()) {
      const q = queues.queue();
      for (let i = 1; i <= 3; i++) await foreign.enqueue(q, 'a', mintJobId(), `{"i":${i}}`);
      expect((await lanes.claim(q))?.payload).toEqual({ i: 1 });
      await lanes.limit(q, 'a', 1);
      await foreign.claim(q);
      seen[mode] = { ring: await ring(q), gactive: Number(await client.hget(keysOf(q).gactive, 'a')) };
    }
    expect(seen.default).toEqual({ ring: [], gactive: 2 }); // today: 2 active at a ceiling of 1
    expect(seen.compat).toEqual({ ring: [], gactive: 1 });
  });

  it('double ring: a lane the other writer put on the ring is never pushed a second time', async () => {
    const seen: Record<string, unknown> = {};
    for (const [mode, lanes] of modes()) {
      const q = queues.queue();
      await foreign.enqueue(q, 'a', mintJobId(), '{"g":"a","i":1}');
      await lanes.submit(q, 'b', { g: 'b', i: 1 });
      await lanes.submit(q, 'c', { g: 'c', i: 1 });
      for (let i = 2; i <= 3; i++) {
        for (const g of ['a', 'b', 'c']) await lanes.submit(q, g, { g, i });
      }
      const before = await ring(q);
      const order: string[] = [];
      for (let n = 0; n < 6; n++) {
        const job = await lanes.claim<{ g: string; i: number }>(q);
        if (!job) break;
        order.push(job.group);
        await lanes.complete(q, job.id, job.attempt);
      }
      seen[mode] = { ring: before.join(''), order: order.join('') };
    }
    // NOTE: a submit to a lane that already has work never pushes it (the lane is counted first), so
    // here the default mode holds too; a join that reads the ring set does not (below).
    expect(seen.default).toEqual({ ring: 'abc', order: 'abcabc' });
    expect(seen.compat).toEqual({ ring: 'abc', order: 'abcabc' });
  });

  it('double ring: a delayed job that falls due into a lane the other writer put on the ring does not push it again', async () => {
    const q = queues.queue();
    await foreign.enqueue(q, 'a', mintJobId(), '{"i":1}');
    await compat.submit(q, 'a', { i: 2 }, { delayMs: 100 });
    await compat.submit(q, 'b', { i: 1 }, { delayMs: 100 });
    await compat.submit(q, 'b', { i: 2 }, { delayMs: 100 });
    expect(await ring(q)).toEqual(['a']);
    await waitPastServerTime(client, (await serverTimeMs(client)) + 150);
    expect(await compat.promote(q)).toBe(3);
    expect(await ring(q)).toEqual(['a', 'b']);
    expect(await compat.lane(q, 'b')).toMatchObject({ pending: 2, inRing: true });
  });

  it('reap: expired leases put their lanes back on the ring once each, at a ceiling or not, in both modes', async () => {
    for (const [, lanes] of modes()) {
      const q = queues.queue();
      await lanes.limit(q, 'c', 2);
      await lanes.submitMany(q, [1, 2, 3, 4].map((i) => ({ group: 'c', payload: i })));
      await lanes.submit(q, 'e', 1);
      await lanes.submitMany(q, [1, 2].map((i) => ({ group: 'w', payload: i })));
      await foreign.enqueue(q, 'f', mintJobId(), '{"i":1}');
      const held = (await lanes.claimMany(q, 6, { leaseMs: 1 })).jobs;
      expect(held.map((j) => j.group).sort()).toEqual(['c', 'c', 'e', 'f', 'w', 'w']);
      expect(await ring(q)).toEqual([]); // c at its ceiling, the others emptied
      await waitPastServerTime(client, (await serverTimeMs(client)) + 20);
      expect(await lanes.reap(q)).toBe(6);
      expect([...(await ring(q))].sort()).toEqual(['c', 'e', 'f', 'w']);
      expect(await lanes.lane(q, 'c')).toMatchObject({ pending: 4, active: 0 });
    }
  });

  it('double ring: a hand-back to a lane the other writer put on the ring pushes it again only without compat', async () => {
    const seen: Record<string, unknown> = {};
    for (const [mode, lanes] of modes()) {
      const q = queues.queue();
      await lanes.submit(q, 'a', { g: 'a', i: 1 });
      const mine = (await lanes.claim(q))!;
      // The lane is empty and off the ring; the other writer gives it work and puts it back on.
      await foreign.enqueue(q, 'a', mintJobId(), '{"g":"a","i":2}');
      await lanes.submit(q, 'b', { g: 'b', i: 1 });
      expect(await lanes.release(q, mine.id, mine.attempt)).toBe(true);
      seen[mode] = (await ring(q)).join('');
    }
    expect(seen.default).toBe('aba'); // a twice on the ring: served twice a turn
    expect(seen.compat).toBe('ab');
  });

  it('flat job: a group-less scheduled job that falls due goes to the flat pending set in compat mode, to the dead set otherwise', async () => {
    for (const [mode, lanes] of modes()) {
      const q = queues.queue();
      const k = keysOf(q);
      const id = mintJobId();
      await foreign.scheduleFlat(q, id, '{"flat":true}', (await serverTimeMs(client)) - 1);
      await lanes.submit(q, 'a', { i: 1 });
      expect((await lanes.claim(q))?.group).toBe('a');
      expect(await client.zscore(k.schedule, id)).toBeNull();
      if (mode === 'compat') {
        expect(await client.zrange(k.flatPending, 0, -1)).toEqual([id]);
        expect(await client.hget(k.job(id), 'state')).toBe('pending');
        expect((await foreign.claimFlat(q))?.id).toBe(id);
      } else {
        expect(await client.zrange(k.flatPending, 0, -1)).toEqual([]);
        expect(await lanes.dead(q)).toEqual([expect.objectContaining({ id, group: '', payload: { flat: true }, lastError: 'scheduled job has no group' })]);
      }
    }
  });

  it('flat job: an expired group-less lease goes back to the flat pending set in compat mode, to the dead set otherwise', async () => {
    for (const [mode, lanes] of modes()) {
      const q = queues.queue();
      const k = keysOf(q);
      const id = mintJobId();
      await foreign.enqueueFlat(q, id, '{"flat":true}');
      await foreign.claimFlat(q, 1);
      await waitPastServerTime(client, Number(await client.zscore(k.active, id)));
      expect(await lanes.reap(q)).toBe(1);
      expect(await client.zscore(k.active, id)).toBeNull();
      if (mode === 'compat') {
        expect(await client.zrange(k.flatPending, 0, -1)).toEqual([id]);
        expect(await client.hget(k.job(id), 'state')).toBe('pending');
      } else {
        expect(await lanes.dead(q)).toEqual([expect.objectContaining({ id, lastError: 'lease expired on a job with no group' })]);
      }
    }
  });

  it('rate: a lane the other writer put on the ring is parked by our claim when its window fills, and our submits leave it parked', async () => {
    const q = queues.queue();
    await compat.rate(q, 'a', { max: 1, perMs: 60_000 });
    for (let i = 1; i <= 3; i++) await foreign.enqueue(q, 'a', mintJobId(), `{"i":${i}}`);
    expect((await compat.claim(q))?.payload).toEqual({ i: 1 });
    expect(await ring(q)).toEqual([]);
    await compat.submit(q, 'a', { i: 4 });
    expect(await ring(q)).toEqual([]);
    expect(await foreign.claim(q)).toBeNull();
    expect(await compat.claim(q)).toBeNull();
    expect(await compat.lane(q, 'a')).toMatchObject({ pending: 3, inRing: false });
  });

  it('rate: a parked lane the other writer put back on the ring leaves it when our drain or cancel empties it', async () => {
    for (const how of ['drain', 'cancel'] as const) {
      const q = queues.queue();
      await compat.rate(q, 'a', { max: 1, perMs: 60_000 });
      await compat.submit(q, 'a', { i: 1 });
      const last = await compat.submit(q, 'a', { i: 2 });
      expect((await compat.claim(q))?.payload).toEqual({ i: 1 });
      expect(await ring(q)).toEqual([]);
      // The other writer knows no rates: its resume rings the parked lane, as it still has work.
      await foreign.resume(q, 'a');
      expect(await ring(q)).toEqual(['a']);
      if (how === 'drain') expect(await compat.drain(q, { group: 'a' })).toBe(1);
      else expect(await compat.cancel(q, last)).toBe(true);
      expect({ how, ring: await ring(q) }).toEqual({ how, ring: [] });
      expect(await compat.lane(q, 'a')).toMatchObject({ pending: 0, inRing: false });
    }
  });

  it('timed pause: once it has ended, stats() and position() apply it as our claim would, and the other writer serves the lane again', async () => {
    const q = queues.queue();
    const id = mintJobId();
    await foreign.enqueue(q, 'a', id, '{"i":1}');
    await foreign.enqueue(q, 'b', mintJobId(), '{"i":2}');
    await compat.pause(q, 'a', { forMs: 1_000 });
    expect(await ring(q)).toEqual(['b']);
    expect(await compat.stats(q)).toMatchObject({ pausedLanes: 1, ringLength: 1 });
    const { pausedUntil } = await compat.lane(q, 'a');
    await waitPastServerTime(client, pausedUntil! + 200);
    expect(await compat.lane(q, 'a')).toMatchObject({ paused: false, inRing: true });
    expect(await compat.stats(q)).toMatchObject({ pausedLanes: 0, ringLength: 2 });
    expect(await ring(q)).toEqual(['b', 'a']);
    expect(await compat.position(q, id)).toMatchObject({ laneRank: 0, ringIndex: 1, ringLength: 2, ahead: 1, exact: true });
    expect((await foreign.claim(q))?.group).toBe('b');
    expect((await foreign.claim(q))?.group).toBe('a');
  });

  it('timers: ended pauses all rejoin in one call (no ring scan: a lane paused until now is off it); reopened rate windows (each join scans the ring) 2 a call', async () => {
    const q = queues.queue();
    for (const g of ['r0', 'r1', 'r2', 'r3', 'r4']) {
      await compat.rate(q, g, { max: 1, perMs: 200 });
      await compat.submitMany(q, [{ group: g, payload: 1 }, { group: g, payload: 2 }]);
    }
    expect((await compat.claimMany(q, 5)).jobs).toHaveLength(5);
    for (const g of ['p0', 'p1', 'p2']) {
      await compat.submit(q, g, 1);
      await compat.pause(q, g, { forMs: 1_000 });
    }
    // The other writer resumes p2 itself, putting it back on the ring: our timer must not push it twice.
    await foreign.resume(q, 'p2');
    expect(await ring(q)).toEqual(['p2']);
    await waitPastServerTime(client, (await serverTimeMs(client)) + 1_100);
    expect((await compat.stats(q)).ringLength).toBe(3 + 2);
    expect((await compat.stats(q)).ringLength).toBe(3 + 4);
    expect((await compat.stats(q)).ringLength).toBe(3 + 5);
    const lanesOnRing = await ring(q);
    expect([...lanesOnRing].sort()).toEqual(['p0', 'p1', 'p2', 'r0', 'r1', 'r2', 'r3', 'r4']);
  });

  it('compat mode reads inRing and the lane list from the ring itself', async () => {
    const q = queues.queue();
    await foreign.enqueue(q, 'a', mintJobId(), '{"i":1}');
    expect(await plain.lanes(q)).toEqual([]);
    expect(await compat.lanes(q)).toEqual([expect.objectContaining({ group: 'a', pending: 1, inRing: true })]);
    expect(await plain.lane(q, 'a')).toMatchObject({ pending: 1, inRing: false });
    expect(await compat.lane(q, 'a')).toMatchObject({ pending: 1, inRing: true });
  });

  it('the option takes only echomq', () => {
    expect(() => lanesOn(client, { compat: 'bullmq' as never })).toThrow(/compat/);
  });
});

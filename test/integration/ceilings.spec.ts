import IORedis from 'ioredis';
import { TestRedisServer } from '../support/redis-server';
import { lanesOn } from '../support/lanes';
import { engineFixture, keysOf, tag, waitPastServerTime } from '../support/engine';
import type { LanesService } from '../../lib/lanes.service';

describe('ceilings (limit) and pause', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  let server: TestRedisServer;
  beforeAll(() => {
    ({ client, lanes, server } = engine);
  });

  const fill = async (q: string, group: string, n: number) =>
    lanes.submitMany(q, [...Array(n).keys()].map((i) => ({ group, payload: { i } })));
  const ring = (q: string) => client.lrange(keysOf(q).ring, 0, -1);

  it('parks a lane at its ceiling (it leaves the ring) and reopens it on complete', async () => {
    const q = queues.queue();
    await fill(q, 'a', 5);
    await fill(q, 'b', 5);
    await lanes.limit(q, 'a', 2);
    const a0 = await lanes.claim(q);
    await lanes.claim(q); // b0
    const a1 = await lanes.claim(q);
    expect([a0, a1].map((j) => tag(j!))).toEqual(['a0', 'a1']);
    expect(await lanes.lane(q, 'a')).toMatchObject({ active: 2, pending: 3, limit: 2, inRing: false });
    expect(await ring(q)).toEqual(['b']);
    for (let i = 0; i < 3; i++) expect((await lanes.claim(q))!.group).toBe('b');

    expect(await lanes.complete(q, a0!.id, a0!.attempt)).toBe(true);
    expect(await lanes.lane(q, 'a')).toMatchObject({ active: 1, inRing: true });
    expect(tag((await lanes.claim(q))!)).toMatch(/^[ab]/);
  });

  it.each([
    ['fails into a backoff', 'retry'],
    ['fails with its attempts spent', 'dead'],
    ['is reaped back into its lane', 'reap'],
    ['is reaped with its attempts spent', 'reap-dead'],
    ['is released', 'release'],
  ])('reopens a lane parked at its ceiling when its held job %s', async (_what, how) => {
    const q = queues.queue();
    const service = lanesOn(client, { maxAttempts: how.endsWith('dead') ? 1 : 3, backoff: { delayMs: 60_000 } });
    await fill(q, 'a', 3);
    await lanes.limit(q, 'a', 1);
    const held = await service.claim(q, { leaseMs: 15 });
    expect((await lanes.lane(q, 'a')).inRing).toBe(false);
    if (how === 'retry' || how === 'dead') {
      expect(await service.fail(q, held!.id, held!.attempt, new Error('x'))).toBe(how);
    } else if (how === 'release') {
      expect(await service.release(q, held!.id, held!.attempt)).toBe(true);
    } else {
      await waitPastServerTime(client, held!.leaseUntil);
      expect(await service.reap(q)).toBe(1);
    }
    const pending = how === 'reap' || how === 'release' ? 3 : 2;
    expect(await lanes.lane(q, 'a')).toMatchObject({ active: 0, pending, inRing: true });
    expect(await ring(q)).toEqual(['a']);
  });

  it('limit lowered below active parks the lane, raised re-rings it, null clears it', async () => {
    const q = queues.queue();
    await fill(q, 'a', 10);
    for (let i = 0; i < 3; i++) await lanes.claim(q);
    expect(await lanes.lane(q, 'a')).toMatchObject({ active: 3, limit: null, inRing: true });

    await lanes.limit(q, 'a', 2);
    expect(await lanes.lane(q, 'a')).toMatchObject({ active: 3, limit: 2, inRing: false });
    expect(await ring(q)).toEqual([]);
    expect(await client.smembers(keysOf(q).ringSet)).toEqual([]);
    expect(await lanes.claim(q)).toBeNull();

    await lanes.limit(q, 'a', 3);
    expect((await lanes.lane(q, 'a')).inRing).toBe(false);
    await lanes.limit(q, 'a', 4);
    expect(await lanes.lane(q, 'a')).toMatchObject({ limit: 4, inRing: true });
    expect(await ring(q)).toEqual(['a']);
    await lanes.limit(q, 'a', 4);
    expect(await ring(q)).toEqual(['a']);

    await lanes.claim(q);
    expect((await lanes.lane(q, 'a')).inRing).toBe(false);
    await lanes.limit(q, 'a', null);
    expect(await lanes.lane(q, 'a')).toMatchObject({ limit: null, inRing: true, active: 4 });
    expect(await client.hexists(keysOf(q).limit, 'a')).toBe(0);
  });

  it('a limit on an empty lane does not ring it', async () => {
    const q = queues.queue();
    await lanes.limit(q, 'a', 5);
    await lanes.limit(q, 'a', null);
    expect(await ring(q)).toEqual([]);
    expect(await lanes.lanes(q)).toEqual([]);
  });

  it('30 concurrent claims on 30 connections against a ceiling of 3 grant exactly 3', async () => {
    const q = queues.queue();
    await fill(q, 'hot', 100);
    await lanes.limit(q, 'hot', 3);
    const conns = [...Array(30)].map(() => server.client());
    try {
      await Promise.all(conns.map((c) => c.ping()));
      const results = await Promise.all(conns.map((c) => lanesOn(c).claim(q)));
      const granted = results.filter((j) => j !== null);
      expect(granted).toHaveLength(3);
      expect(new Set(granted.map((j) => j!.id)).size).toBe(3);
      expect(await lanes.lane(q, 'hot')).toMatchObject({ active: 3, pending: 97, inRing: false });
      const wresults = await Promise.all(conns.map((c) => lanesOn(c).wclaim(q)));
      expect(wresults.flat()).toHaveLength(0);
    } finally {
      await Promise.all(conns.map((c) => c.quit()));
    }
  });

  it('30 concurrent wclaims with weight 5 against a ceiling of 3 grant exactly 3', async () => {
    const q = queues.queue();
    await fill(q, 'hot', 100);
    await lanes.weight(q, 'hot', 5);
    await lanes.limit(q, 'hot', 3);
    const conns = [...Array(30)].map(() => server.client());
    try {
      const results = await Promise.all(conns.map((c) => lanesOn(c).wclaim(q)));
      expect(results.flat()).toHaveLength(3);
      expect(await client.hget(keysOf(q).gactive, 'hot')).toBe('3');
    } finally {
      await Promise.all(conns.map((c) => c.quit()));
    }
  });

  it('30 concurrent wclaimManys of many turns with weight 5 against a ceiling of 3 grant exactly 3', async () => {
    const q = queues.queue();
    await fill(q, 'hot', 100);
    await lanes.weight(q, 'hot', 5);
    await lanes.limit(q, 'hot', 3);
    const conns = [...Array(30)].map(() => server.client());
    try {
      const results = await Promise.all(conns.map((c) => lanesOn(c).wclaimMany(q, 10)));
      expect(results.flatMap((r) => r.turns.flat())).toHaveLength(3);
      expect(results.filter((r) => r.turns.length > 0).map((r) => r.turns.length)).toEqual([1]);
      expect(await client.hget(keysOf(q).gactive, 'hot')).toBe('3');
    } finally {
      await Promise.all(conns.map((c) => c.quit()));
    }
  });

  it('pause keeps the backlog and takes the lane off the ring; resume re-rings it', async () => {
    const q = queues.queue();
    await fill(q, 'a', 4);
    await fill(q, 'b', 4);
    await lanes.pause(q, 'a');
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 4, paused: true, inRing: false });
    expect(await ring(q)).toEqual(['b']);
    expect(await client.zcard(keysOf(q).lane('a'))).toBe(4);

    await lanes.resume(q, 'a');
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 4, paused: false, inRing: true });
    expect(await ring(q)).toEqual(['b', 'a']);
    expect(tag((await lanes.claim(q))!)).toBe('b0');
    expect(tag((await lanes.claim(q))!)).toBe('a0');
  });

  it('a paused lane is never served, by claim, claimMany or wclaim, even as jobs arrive and finish', async () => {
    const q = queues.queue();
    await fill(q, 'a', 3);
    await fill(q, 'p', 3);
    const held = await lanes.claimMany(q, 2);
    expect(held.jobs.map(tag)).toEqual(['a0', 'p0']);
    await lanes.pause(q, 'p');
    await lanes.pause(q, 'p');
    await lanes.submit(q, 'p', { i: 3 });
    for (const j of held.jobs) await lanes.complete(q, j.id, j.attempt);
    const served: string[] = [];
    for (;;) {
      const j = await lanes.claim(q);
      if (!j) break;
      served.push(j.group);
    }
    expect((await lanes.claimMany(q, 5)).jobs).toEqual([]);
    expect(await lanes.wclaim(q)).toEqual([]);
    expect(served).toEqual(['a', 'a']);
    expect(await lanes.lane(q, 'p')).toMatchObject({ pending: 3, paused: true, inRing: false, active: 0 });
  });

  it('resume does not ring a lane that is empty or at its ceiling', async () => {
    const q = queues.queue();
    await lanes.pause(q, 'empty');
    await lanes.resume(q, 'empty');
    expect(await lanes.lane(q, 'empty')).toMatchObject({ paused: false, inRing: false });

    await fill(q, 'full', 3);
    await lanes.limit(q, 'full', 1);
    await lanes.claim(q);
    await lanes.pause(q, 'full');
    await lanes.resume(q, 'full');
    expect(await lanes.lane(q, 'full')).toMatchObject({ paused: false, inRing: false, active: 1 });
    expect(await ring(q)).toEqual([]);
  });
});

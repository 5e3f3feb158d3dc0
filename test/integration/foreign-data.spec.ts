import type IORedis from 'ioredis';
import { mintJobId } from '../../lib/ids/job-id';
import type { LanesService } from '../../lib/lanes.service';
import { engineFixture, keysOf, serverTimeMs } from '../support/engine';
import { ForeignWriter } from '../support/foreign-writer';

/** Rows another writer made that we cannot serve never break a claim, and never vanish. */
describe('foreign data never breaks a claim', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  let foreign: ForeignWriter;
  beforeAll(() => {
    ({ client, lanes } = engine);
    foreign = new ForeignWriter(client);
  });

  it('a payload that is not JSON is dead-lettered with its reason; the rest of the batch is served, and its place filled', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    await lanes.submit(q, 'a', { i: 1 });
    const bad = mintJobId();
    await foreign.enqueue(q, 'b', bad, 'not json {');
    await lanes.submit(q, 'c', { i: 3 });
    await lanes.submit(q, 'a', { i: 4 });
    await lanes.limit(q, 'b', 1);

    // A short batch means that the ring ran dry (a claim loop idles on it): the buried job's place is filled.
    const { jobs } = await lanes.claimMany(q, 3);
    expect(jobs.map((j) => j.payload)).toEqual([{ i: 1 }, { i: 3 }, { i: 4 }]);
    expect(await client.zscore(k.active, bad)).toBeNull();
    expect(await client.hget(k.gactive, 'b')).toBeNull();
    const dead = await lanes.dead(q);
    expect(dead).toEqual([expect.objectContaining({ id: bad, group: 'b', payload: 'not json {', attempt: 1, lastError: 'payload is not JSON' })]);
    expect((await lanes.stats(q)).dead).toBe(1);
    for (const j of jobs) expect(await lanes.complete(q, j.id, j.attempt)).toBe(true);

    // retryDead puts it back; the next claim finds it still unparseable and buries it again.
    expect(await lanes.retryDead(q, bad)).toBe(true);
    expect(await lanes.lane(q, 'b')).toMatchObject({ pending: 1, inRing: true });
    expect(await lanes.claim(q)).toBeNull();
    expect((await lanes.dead(q)).map((j) => j.attempt)).toEqual([2]);
  });

  it('wclaim: a bad payload in a weighted turn is dead-lettered, the good ones are served', async () => {
    const q = queues.queue();
    await lanes.weight(q, 'a', 3);
    await lanes.submit(q, 'a', { i: 1 });
    await foreign.enqueue(q, 'a', mintJobId(), '');
    await lanes.submit(q, 'a', { i: 3 });
    const jobs = await lanes.wclaim(q);
    expect(jobs.map((j) => j.payload)).toEqual([{ i: 1 }, { i: 3 }]);
    expect((await lanes.dead(q)).map((j) => j.lastError)).toEqual(['payload is not JSON']);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 0, active: 2 });
  });

  it('wclaimMany: a bad payload is left out of its turn and dead-lettered; the other turns are served', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', { i: 1 });
    await foreign.enqueue(q, 'b', mintJobId(), '{"unclosed":');
    await lanes.submit(q, 'c', { i: 3 });
    const { turns } = await lanes.wclaimMany(q, 3);
    expect(turns.map((t) => t.map((j) => j.payload))).toEqual([[{ i: 1 }], [], [{ i: 3 }]]);
    expect((await lanes.dead(q)).map((j) => [j.group, j.lastError])).toEqual([['b', 'payload is not JSON']]);
    expect(await lanes.lane(q, 'b')).toMatchObject({ pending: 0, active: 0 });
  });

  it('wclaimMany with untilJobs (a weighted claim loop) fills the places of buried jobs', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', { i: 1 });
    await foreign.enqueue(q, 'b', mintJobId(), 'nope');
    await lanes.submit(q, 'c', { i: 3 });
    const { turns } = await lanes.wclaimMany(q, 2, { untilJobs: 2 });
    expect(turns.flat().map((j) => j.payload)).toEqual([{ i: 1 }, { i: 3 }]);
  });

  it('wclaimMany with untilJobs asks again for buried places at most four times, as claimMany does', async () => {
    const q = queues.queue();
    for (let i = 0; i < 60; i++) await foreign.enqueue(q, 'b', mintJobId(), 'nope');
    const { turns } = await lanes.wclaimMany(q, 5, { untilJobs: 5 });
    // Five places, asked again in four calls of five: 25 buried, not the whole lane.
    expect(turns.flat()).toEqual([]);
    expect(turns.length).toBe(25);
    expect(await lanes.lane(q, 'b')).toMatchObject({ pending: 35 });
  });

  it('a scheduled id with no row, or a row with no group, goes to the dead set with a reason', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    const now = await serverTimeMs(client);
    const ghost = mintJobId();
    const flat = mintJobId();
    await client.zadd(k.schedule, now - 2, ghost);
    await foreign.scheduleFlat(q, flat, '{"flat":1}', now - 1);
    expect(await lanes.promote(q)).toBe(2);
    expect(await client.zcard(k.schedule)).toBe(0);
    const dead = await lanes.dead(q);
    expect(dead.map((j) => [j.id, j.group, j.lastError])).toEqual([
      [ghost, '', 'job row missing'],
      [flat, '', 'scheduled job has no group'],
    ].sort((x, y) => (x[0] < y[0] ? -1 : 1)));
    // A dead job has its finishedAt, whatever killed it.
    expect((await lanes.job(q, flat))!.finishedAt).toBeGreaterThanOrEqual(now);
    // Nothing to put back into a lane: retryDead says so and changes nothing.
    expect(await lanes.retryDead(q, flat)).toBe(false);
    expect(await lanes.retryDead(q, ghost)).toBe(false);
  });

  it('a lane entry whose row is gone is not served and not dropped: it goes to the dead set', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    const ghost = mintJobId();
    await foreign.enqueue(q, 'a', ghost, '{"i":1}');
    await lanes.submit(q, 'a', { i: 2 });
    await client.del(k.job(ghost));
    for (const claimOne of [() => lanes.claim(q), async () => (await lanes.wclaim(q))[0] ?? null]) {
      expect((await claimOne())?.payload).toEqual({ i: 2 });
      expect(await lanes.dead(q)).toEqual([expect.objectContaining({ id: ghost, group: '', lastError: 'job row missing' })]);
      await client.del(k.dead);
      await foreign.enqueue(q, 'a', ghost, '{"i":1}');
      await lanes.submit(q, 'a', { i: 2 });
      await client.del(k.job(ghost));
    }
  });

  it('the lane index and the totals follow a job buried for its payload and a lane entry without a row', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    const bad = await lanes.submit(q, 'a', { i: 1 });
    await client.hset(k.job(bad), 'payload', 'not json {');
    const gone = await lanes.submit(q, 'b', { i: 2 });
    await lanes.submit(q, 'c', { i: 3 });
    await client.del(k.job(gone));
    // The lanes scored by depth, then (scored by when their heads became ready, from 10^12 up) their head entries.
    const indexed = await client.zrange(k.index, 0, -1);
    expect(indexed).toEqual(['a', 'b', 'c', '{h}a', '{h}b', '{h}c']);
    expect(await client.zrange(k.index, 0, 2, 'WITHSCORES')).toEqual(['a', '1', 'b', '1', 'c', '1']);
    const { jobs } = await lanes.claimMany(q, 3);
    expect(jobs.map((j) => j.payload)).toEqual([{ i: 3 }]);
    // Lanes a and b are idle with no setting: they leave the index; c is active, at depth 0.
    // (c was emptied by a claim while its job is active: its head entry stays until a read or its last ack.)
    expect(await client.zrange(k.index, 0, -1)).toEqual(['c', '{h}c']);
    expect(await client.zscore(k.index, 'c')).toBe('0');
    expect(await lanes.stats(q)).toMatchObject({
      totals: { submitted: 3, completed: 0, dead: 2 }, pending: 0, active: 1, dead: 2, lanes: 1, paused: false });
    expect(await lanes.complete(q, jobs[0].id, jobs[0].attempt)).toBe(true);
    expect(await client.exists(k.index)).toBe(0);
  });

  it('an expired lease with no row goes to the dead set with a reason', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    const ghost = mintJobId();
    await client.zadd(k.active, (await serverTimeMs(client)) - 10, ghost);
    expect(await lanes.reap(q)).toBe(1);
    expect(await client.zcard(k.active)).toBe(0);
    expect(await lanes.dead(q)).toEqual([expect.objectContaining({ id: ghost, lastError: 'job row missing' })]);
  });
});

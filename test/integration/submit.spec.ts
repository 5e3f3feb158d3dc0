import IORedis from 'ioredis';
import { lanesOn, sameLane, snapshot } from '../support/lanes';
import { engineFixture, keysOf, serverTimeMs, tag, waitPastServerTime } from '../support/engine';
import { EchoMqError } from '../../lib/errors';
import * as jobIds from '../../lib/ids/job-id';
import { isJobId, mintJobId, mintTimeOf } from '../../lib/ids/job-id';
import type { LanesService } from '../../lib/lanes.service';

describe('submit, submitMany, complete and the lane listing', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });
  afterEach(() => jest.restoreAllMocks());

  it('admits a job as a pending row in its lane and rings the lane', async () => {
    const q = queues.queue();
    const before = Date.now();
    const id = await lanes.submit(q, 'a', { x: 1 });
    expect(isJobId(id)).toBe(true);
    // Only what cannot be derived (the submit time is the id's mint time), plus the contract's last_error.
    expect(await client.hgetall(keysOf(q).job(id))).toEqual({ state: 'pending', attempts: '0', payload: '{"x":1}', group: 'a', last_error: '' });
    const claimed = await lanes.claim(q);
    expect(claimed?.submittedAt).toBe(mintTimeOf(id));
    expect(claimed!.submittedAt).toBeGreaterThanOrEqual(before);
    expect(claimed!.submittedAt).toBeLessThanOrEqual(Date.now());
    await lanes.release(q, id, claimed!.attempt);
    expect(await client.zrange(keysOf(q).lane('a'), 0, -1, 'WITHSCORES')).toEqual([id, '0']);
    expect(await client.lrange(keysOf(q).ring, 0, -1)).toEqual(['a']);
    expect(await client.llen(keysOf(q).wake)).toBeGreaterThan(0);
  });

  it('pushes one wake token per job that gives a lane work, and keeps the wake list at 16 at most', async () => {
    const q = queues.queue();
    const wake = keysOf(q).wake;
    await lanes.submitMany(q, [0, 1, 2].map((i) => ({ group: `g${i}`, payload: i })));
    expect(await client.llen(wake)).toBe(3);
    await lanes.submit(q, 'g0', 3);
    expect(await client.llen(wake)).toBe(4);
    await lanes.submitMany(q, Array.from({ length: 40 }, (_, i) => ({ group: `g${i % 5}`, payload: i })));
    expect(await client.llen(wake)).toBe(16);
    // A paused lane gains no serviceable work, so it wakes nobody.
    await client.del(wake);
    await lanes.pause(q, 'quiet');
    await lanes.submit(q, 'quiet', 1);
    expect(await client.llen(wake)).toBe(0);
  });

  it('a delayed submit is not claimable before it is due and is promoted by claim after', async () => {
    const q = queues.queue();
    const before = await serverTimeMs(client);
    const id = await lanes.submit(q, 'a', { late: true }, { delayMs: 300 });
    const due = Number(await client.zscore(keysOf(q).schedule, id));
    expect(due).toBeGreaterThanOrEqual(before + 300);
    expect(await client.hget(keysOf(q).job(id), 'state')).toBe('scheduled');
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 0, inRing: false, rate: null, pausedUntil: null, pauseReason: null, tenant: null, maxDepth: null, ordered: false, headWaitMs: null });
    expect(await lanes.claim(q)).toBeNull();
    const { jobs, dueInMs } = await lanes.claimMany(q, 1);
    expect(jobs).toEqual([]);
    expect(dueInMs).toBeGreaterThan(0);
    expect(dueInMs).toBeLessThanOrEqual(300);

    await waitPastServerTime(client, due);
    const job = await lanes.claim(q);
    expect(job).toMatchObject({ id, attempt: 1, payload: { late: true } });
    expect(await client.zcard(keysOf(q).schedule)).toBe(0);
  });

  it('a due delayed job takes its mint position in its lane, and wclaim promotes too', async () => {
    const q = queues.queue();
    const early = await lanes.submit(q, 'a', { i: 0 }, { delayMs: 30 });
    await lanes.submit(q, 'a', { i: 1 });
    await waitPastServerTime(client, Number(await client.zscore(keysOf(q).schedule, early)));
    await lanes.weight(q, 'a', 2);
    expect((await lanes.wclaim(q)).map(tag)).toEqual(['a0', 'a1']);
  });

  it('idempotent submit: the same jobId returns the same id and admits one job', async () => {
    const q = queues.queue();
    const jobId = mintJobId();
    expect(await lanes.submit(q, 'a', { n: 1 }, { jobId })).toBe(jobId);
    expect(await lanes.submit(q, 'a', { n: 2 }, { jobId })).toBe(jobId);
    expect(await lanes.submit(q, 'b', { n: 3 }, { jobId })).toBe(jobId);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 1 });
    expect(await lanes.lane(q, 'b')).toMatchObject({ pending: 0 });
    const held = await lanes.claim(q);
    expect(held).toMatchObject({ id: jobId, payload: { n: 1 } });
    expect(await lanes.submit(q, 'a', { n: 4 }, { jobId })).toBe(jobId);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 0, active: 1 });
  });

  it('idempotent submit: the same dedupKey returns the existing id while it is live (pending, scheduled, active, dead), and is free again after completion', async () => {
    const q = queues.queue();
    const failing = lanesOn(client, { maxAttempts: 1 });
    const first = await lanes.submit(q, 'a', { n: 1 }, { dedupKey: 'order-42' });
    expect(await lanes.submit(q, 'a', { n: 2 }, { dedupKey: 'order-42' })).toBe(first);
    expect(await lanes.submit(q, 'b', { n: 3 }, { dedupKey: 'order-42', jobId: mintJobId() })).toBe(first);
    const held = await lanes.claim(q);
    expect(await lanes.submit(q, 'a', {}, { dedupKey: 'order-42' })).toBe(first);
    expect(await failing.fail(q, first, held!.attempt, 'x')).toBe('dead');
    expect(await lanes.submit(q, 'a', {}, { dedupKey: 'order-42' })).toBe(first);
    await lanes.retryDead(q, first);
    const again = await lanes.claim(q);
    expect(await lanes.complete(q, first, again!.attempt)).toBe(true);
    expect(await client.hexists(keysOf(q).dedup, 'order-42')).toBe(0);

    const second = await lanes.submit(q, 'a', { n: 5 }, { dedupKey: 'order-42' });
    expect(second).not.toBe(first);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 1 });

    const delayed = await lanes.submit(q, 'c', {}, { dedupKey: 'later', delayMs: 60_000 });
    expect(await lanes.submit(q, 'c', {}, { dedupKey: 'later' })).toBe(delayed);
    expect(await client.zcard(keysOf(q).schedule)).toBe(1);
  });

  it('submitMany returns ids in input order, across chunks larger than 500, with mixed groups', async () => {
    const q = queues.queue();
    const items = [...Array(1234).keys()].map((i) => ({ group: `g${i % 5}`, payload: { i } }));
    const ids = await lanes.submitMany(q, items);
    expect(ids).toHaveLength(1234);
    expect(new Set(ids).size).toBe(1234);
    expect([...ids].sort()).toEqual(ids);
    for (const at of [0, 499, 500, 501, 1233]) {
      const row = await client.hgetall(keysOf(q).job(ids[at]));
      expect(row).toMatchObject({ group: `g${at % 5}`, payload: JSON.stringify({ i: at }), state: 'pending' });
    }
    const info = await lanes.lanes(q);
    expect(info.map((l) => [l.group, l.pending])).toEqual([['g0', 247], ['g1', 247], ['g2', 247], ['g3', 247], ['g4', 246]]);
    expect((await client.lrange(keysOf(q).ring, 0, -1)).sort()).toEqual(['g0', 'g1', 'g2', 'g3', 'g4']);
    expect(await lanes.submitMany(q, [])).toEqual([]);
  });

  it('submitMany deduplicates within a batch and against live jobs, and honours per-item options', async () => {
    const q = queues.queue();
    const live = await lanes.submit(q, 'x', {}, { dedupKey: 'k0' });
    const own = mintJobId();
    const ids = await lanes.submitMany(q, [
      { group: 'a', payload: 1, opts: { dedupKey: 'k1' } },
      { group: 'b', payload: 2, opts: { dedupKey: 'k1' } },
      { group: 'a', payload: 3, opts: { jobId: own } },
      { group: 'c', payload: 4, opts: { jobId: own } },
      { group: 'a', payload: 5, opts: { dedupKey: 'k0' } },
      { group: 'd', payload: 6, opts: { delayMs: 60_000, maxAttempts: 7 } },
    ]);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).toBe(own);
    expect(ids[3]).toBe(own);
    expect(ids[4]).toBe(live);
    expect(new Set(ids).size).toBe(4);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 2 });
    expect(await lanes.lane(q, 'b')).toMatchObject({ pending: 0 });
    expect(await lanes.lane(q, 'c')).toMatchObject({ pending: 0 });
    expect(await client.hgetall(keysOf(q).job(ids[5]))).toMatchObject({ state: 'scheduled', max: '7', group: 'd' });
  });

  it('a submit never drops a job because an id it minted itself collided', async () => {
    const q = queues.queue();
    const taken = await lanes.submit(q, 'a', { taken: true });
    const realMint = jobIds.mintJobId;
    let calls = 0;
    jest.spyOn(jobIds, 'mintJobId').mockImplementation(() => (++calls <= 2 ? taken : realMint()));
    const id = await lanes.submit(q, 'a', { fresh: true });
    expect(id).not.toBe(taken);
    expect(JSON.parse((await client.hget(keysOf(q).job(id), 'payload'))!)).toEqual({ fresh: true });
    expect(JSON.parse((await client.hget(keysOf(q).job(taken), 'payload'))!)).toEqual({ taken: true });

    calls = 0;
    const many = await lanes.submitMany(q, [{ group: 'b', payload: 1 }, { group: 'b', payload: 2 }]);
    expect(many).not.toContain(taken);
    expect(new Set(many).size).toBe(2);
    expect(await lanes.lane(q, 'b')).toMatchObject({ pending: 2 });
  });

  it('a submit whose minted ids keep colliding rejects instead of returning another job\'s id', async () => {
    const q = queues.queue();
    const taken = await lanes.submit(q, 'a', { taken: true });
    jest.spyOn(jobIds, 'mintJobId').mockReturnValue(taken);
    const before = await snapshot(client, q);
    await expect(lanes.submit(q, 'a', { lost: true })).rejects.toBeInstanceOf(EchoMqError);
    await expect(lanes.submitMany(q, [{ group: 'a', payload: 1 }])).rejects.toBeInstanceOf(EchoMqError);
    expect(await snapshot(client, q)).toEqual(before);
  });

  it('complete deletes the row and leaves nothing behind but counters; stats count', async () => {
    const q = queues.queue();
    const ids = await lanes.submitMany(q, [
      { group: 'a', payload: 1, opts: { dedupKey: 'd1' } },
      { group: 'b', payload: 2, opts: { maxAttempts: 2 } },
      { group: 'a', payload: 3 },
    ]);
    const served = await lanes.claimMany(q, 3);
    for (const j of served.jobs) expect(await lanes.complete(q, j.id, j.attempt)).toBe(true);
    for (const id of ids) expect(await client.exists(keysOf(q).job(id))).toBe(0);
    const snap = await snapshot(client, q);
    const k = keysOf(q);
    // Counters: the totals, and the completions of the second(s) they came in (keys that expire after 61 s).
    const bucket = Object.keys(snap).filter((key) => key.startsWith(`${k.stats}:`));
    expect(bucket.length === 1 || bucket.length === 2).toBe(true);
    for (const key of bucket) expect(await client.pttl(key)).toBeGreaterThan(59_000);
    // And the shares' bucket of what was served (served:<n>, lua/includes/servedShare.lua), which expires after 80 s.
    const servedBuckets = Object.keys(snap).filter((key) => key.startsWith(`${k.base}served:`));
    expect(servedBuckets.length === 1 || servedBuckets.length === 2).toBe(true);
    for (const key of servedBuckets) expect(await client.pttl(key)).toBeGreaterThan(70_000);
    expect(Object.keys(snap).filter((key) => key !== k.stats && key !== k.wake && !bucket.includes(key) && !servedBuckets.includes(key))).toEqual([]);
    expect(await lanes.stats(q)).toMatchObject({ totals: { submitted: 3, completed: 3, retried: 0, dead: 0, reaped: 0 }, pending: 0, lanes: 0, paused: false });
    expect(await lanes.lanes(q)).toEqual([]);
  });

  it('lanes() lists exactly the lanes with pending or active jobs or settings; lane() reports every field', async () => {
    const q = queues.queue();
    expect(await lanes.lanes(q)).toEqual([]);
    await lanes.submit(q, 'active', {});
    await lanes.submit(q, 'active', {});
    expect((await lanes.claimMany(q, 2)).jobs.map((j) => j.group)).toEqual(['active', 'active']);
    await lanes.submit(q, 'done', {});
    const done = await lanes.claim(q);
    await lanes.complete(q, done!.id, done!.attempt);
    await lanes.submit(q, 'pending', {});
    await lanes.submit(q, 'scheduledOnly', {}, { delayMs: 60_000 });
    await lanes.weight(q, 'weighted', 4);
    await lanes.weight(q, 'reweighted', 4);
    await lanes.weight(q, 'reweighted', 1);
    await lanes.limit(q, 'limited', 2);
    await lanes.pause(q, 'paused');
    await lanes.limit(q, 'cleared', 2);
    await lanes.limit(q, 'cleared', null);
    await lanes.pause(q, 'resumed');
    await lanes.resume(q, 'resumed');

    const all = await lanes.lanes(q);
    expect(all.map((l) => l.group)).toEqual(['active', 'limited', 'paused', 'pending', 'weighted']);
    const byName = Object.fromEntries(all.map((l) => [l.group, l]));
    expect(byName.active).toEqual({ group: 'active', pending: 0, active: 2, weight: 1, limit: null, paused: false, inRing: false, rate: null, pausedUntil: null, pauseReason: null, tenant: null, maxDepth: null, ordered: false, headWaitMs: null });
    expect(byName.limited).toEqual({ group: 'limited', pending: 0, active: 0, weight: 1, limit: 2, paused: false, inRing: false, rate: null, pausedUntil: null, pauseReason: null, tenant: null, maxDepth: null, ordered: false, headWaitMs: null });
    expect(byName.paused).toEqual({ group: 'paused', pending: 0, active: 0, weight: 1, limit: null, paused: true, inRing: false, rate: null, pausedUntil: null, pauseReason: null, tenant: null, maxDepth: null, ordered: false, headWaitMs: null });
    expect(byName.weighted).toEqual({ group: 'weighted', pending: 0, active: 0, weight: 4, limit: null, paused: false, inRing: false, rate: null, pausedUntil: null, pauseReason: null, tenant: null, maxDepth: null, ordered: false, headWaitMs: null });
    expect(byName.pending).toEqual({ group: 'pending', pending: 1, active: 0, weight: 1, limit: null, paused: false, inRing: true, rate: null, pausedUntil: null, pauseReason: null, tenant: null, maxDepth: null, ordered: false, headWaitMs: expect.any(Number) });
    // NOTE: a pending head ages between the two reads.
    for (const l of all) expect(await lanes.lane(q, l.group)).toEqual(sameLane(l));
    expect(await lanes.lane(q, 'nobody')).toEqual({ group: 'nobody', pending: 0, active: 0, weight: 1, limit: null, paused: false, inRing: false, rate: null, pausedUntil: null, pauseReason: null, tenant: null, maxDepth: null, ordered: false, headWaitMs: null });
  });
});

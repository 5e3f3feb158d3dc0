import IORedis from 'ioredis';
import { lanesOn } from '../support/lanes';
import { engineFixture, keysOf, serverTimeMs, tag, waitPastServerTime } from '../support/engine';
import type { LanesService } from '../../lib/lanes.service';
import type { LaneJob } from '../../lib/interfaces';

describe('fail, backoff, dead letters and retryDead', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  beforeAll(() => {
    ({ client } = engine);
  });

  /** Fails a held job and checks where the backoff put it: tBefore + wait <= score <= tAfter + wait. */
  async function failAndCheckBackoff(lanes: LanesService, q: string, job: LaneJob, wait: number): Promise<number> {
    const before = await serverTimeMs(client);
    expect(await lanes.fail(q, job.id, job.attempt, new Error(`boom ${job.attempt}`))).toBe('retry');
    const after = await serverTimeMs(client);
    const due = Number(await client.zscore(keysOf(q).schedule, job.id));
    expect(due).toBeGreaterThanOrEqual(before + wait);
    expect(due).toBeLessThanOrEqual(after + wait);
    expect(await client.hget(keysOf(q).job(job.id), 'state')).toBe('scheduled');
    return due;
  }

  /** Waits past a due time, then claims: the promotion happens inside claim. */
  async function claimWhenDue(lanes: LanesService, q: string, due: number): Promise<LaneJob> {
    await waitPastServerTime(client, due);
    const job = await lanes.claim(q);
    expect(job).not.toBeNull();
    return job!;
  }

  it('fail retries with exponential backoff (delay·factor^(n−1), capped by maxDelayMs), then dead after maxAttempts with lastError', async () => {
    // NOTE: delays long enough that the claim right after a fail cannot find the retry due yet.
    const lanes = lanesOn(client, { maxAttempts: 4, backoff: { delayMs: 100, factor: 2, maxDelayMs: 250 } });
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', { i: 0 });
    let job = (await lanes.claim(q))!;
    for (const [n, wait] of [[1, 100], [2, 200], [3, 250]]) {
      expect(job).toMatchObject({ id, attempt: n });
      expect(await lanes.claim(q)).toBeNull(); // backoff holds it out of the lane
      const due = await failAndCheckBackoff(lanes, q, job, wait);
      expect(await lanes.claim(q)).toBeNull();
      job = await claimWhenDue(lanes, q, due);
      expect(job.lastError).toBe(`boom ${n}`);
    }
    expect(job.attempt).toBe(4);
    expect(await lanes.fail(q, id, 4, new Error('final'))).toBe('dead');
    expect(await client.hgetall(keysOf(q).job(id))).toMatchObject({ state: 'dead', last_error: 'final', attempts: '4' });
    expect(await client.zcard(keysOf(q).schedule)).toBe(0);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 0, active: 0 });
    expect(await lanes.stats(q)).toMatchObject({ totals: { submitted: 1, completed: 0, retried: 3, dead: 1 }, dead: 1, pending: 0, paused: false });

    const dead = await lanes.dead(q);
    expect(dead).toEqual([{ id, queue: q, group: 'a', payload: { i: 0 }, attempt: 4, leaseUntil: 0, submittedAt: job.submittedAt, lastError: 'final' }]);
  });

  it('a job of its own maxAttempts goes dead on its own budget, and the fail opts override the default', async () => {
    const lanes = lanesOn(client, { maxAttempts: 5, backoff: { delayMs: 0 } });
    const q = queues.queue();
    const own = await lanes.submit(q, 'a', { i: 0 }, { maxAttempts: 1 });
    const job = await lanes.claim(q);
    expect(await lanes.fail(q, own, job!.attempt, 'x')).toBe('dead');

    const other = await lanes.submit(q, 'b', { i: 0 });
    const b1 = await lanes.claim(q);
    expect(await lanes.fail(q, other, b1!.attempt, 'x', { maxAttempts: 2 })).toBe('retry');
    const b2 = await lanes.claim(q);
    expect(await lanes.fail(q, other, b2!.attempt, 'x', { maxAttempts: 2 })).toBe('dead');
  });

  it('a retry with a zero delay goes straight back to the head of its own lane', async () => {
    const lanes = lanesOn(client, { backoff: { delayMs: 0 } });
    const q = queues.queue();
    for (let i = 0; i < 3; i++) await lanes.submit(q, 'a', { i });
    const first = await lanes.claim(q);
    expect(await lanes.fail(q, first!.id, first!.attempt, 'again')).toBe('retry');
    expect(await client.zcard(keysOf(q).schedule)).toBe(0);
    const next = await lanes.claim(q);
    expect(next).toMatchObject({ id: first!.id, attempt: 2, lastError: 'again' });
  });

  it('failure reasons: Error messages, strings and other values, cut to a bounded length', async () => {
    const lanes = lanesOn(client, { maxAttempts: 1 });
    const q = queues.queue();
    const reasons: [unknown, string][] = [
      [new Error('plain'), 'plain'],
      ['a string', 'a string'],
      [{ code: 7 }, '{"code":7}'],
      [undefined, 'undefined'],
      ['x'.repeat(10_000), 'x'.repeat(4096)],
    ];
    for (const [reason, stored] of reasons) {
      const id = await lanes.submit(q, 'a', {});
      const job = await lanes.claim(q);
      expect(await lanes.fail(q, id, job!.attempt, reason)).toBe('dead');
      expect(await client.hget(keysOf(q).job(id), 'last_error')).toBe(stored);
    }
  });

  it('retryDead puts a dead job back with attempt counting on (old tokens stale) and a fresh attempt budget', async () => {
    const lanes = lanesOn(client, { maxAttempts: 2, backoff: { delayMs: 0 } });
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', { i: 0 });
    await lanes.submit(q, 'a', { i: 1 });
    const tokens: number[] = [];
    for (const outcome of ['retry', 'dead']) {
      const job = await lanes.claim(q);
      expect(job!.id).toBe(id);
      tokens.push(job!.attempt);
      expect(await lanes.fail(q, id, job!.attempt, `e${job!.attempt}`)).toBe(outcome);
    }
    const rest = await lanes.claim(q);
    await lanes.complete(q, rest!.id, rest!.attempt);
    expect((await lanes.dead(q)).map((j) => j.id)).toEqual([id]);

    expect(await lanes.retryDead(q, id)).toBe(true);
    expect(await lanes.retryDead(q, id)).toBe(false);
    expect(await lanes.dead(q)).toEqual([]);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 1, inRing: true });
    expect(await client.hget(keysOf(q).job(id), 'state')).toBe('pending');

    const back = await lanes.claim(q);
    expect(back).toMatchObject({ id, attempt: 3, lastError: 'e2' });
    for (const t of tokens) {
      expect(await lanes.complete(q, id, t)).toBe(false);
      expect(await lanes.fail(q, id, t, 'old')).toBe('stale');
      expect(await lanes.extend(q, id, t, 1_000)).toBe(false);
    }
    // A fresh budget of 2: one more retry, then dead again.
    expect(await lanes.fail(q, id, 3, 'e3')).toBe('retry');
    const fourth = await lanes.claim(q);
    expect(fourth!.attempt).toBe(4);
    expect(await lanes.fail(q, id, 4, 'e4')).toBe('dead');
    expect(await lanes.retryDead(q, id)).toBe(true);
    const fifth = await lanes.claim(q);
    expect(await lanes.complete(q, id, fifth!.attempt)).toBe(true);
    expect(await client.exists(keysOf(q).job(id))).toBe(0);
  });

  it('retryDead refuses jobs that are not dead', async () => {
    const lanes = lanesOn(client);
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', {});
    expect(await lanes.retryDead(q, id)).toBe(false);
    await lanes.claim(q);
    expect(await lanes.retryDead(q, id)).toBe(false);
    expect(await lanes.retryDead(q, 'JOB00000000000')).toBe(false);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 0, active: 1 });
  });

  it('retryDead into a paused lane keeps it parked until resume', async () => {
    const lanes = lanesOn(client, { maxAttempts: 1 });
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', {});
    const job = await lanes.claim(q);
    await lanes.fail(q, id, job!.attempt, 'x');
    await lanes.pause(q, 'a');
    expect(await lanes.retryDead(q, id)).toBe(true);
    expect(await lanes.lane(q, 'a')).toMatchObject({ pending: 1, inRing: false });
    expect(await lanes.claim(q)).toBeNull();
    await lanes.resume(q, 'a');
    expect(await lanes.claim(q)).toMatchObject({ id, attempt: 2 });
  });

  it('dead() pages oldest death first', async () => {
    const lanes = lanesOn(client, { maxAttempts: 1 });
    const q = queues.queue();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await lanes.submit(q, `g${i}`, { i });
      const job = await lanes.claim(q);
      await lanes.fail(q, id, job!.attempt, `e${i}`);
      ids.push(id);
    }
    expect((await lanes.dead(q)).map(tag)).toEqual(['g00', 'g11', 'g22', 'g33', 'g44']);
    expect((await lanes.dead(q, { offset: 1, count: 2 })).map((j) => j.id)).toEqual(ids.slice(1, 3));
    expect(await lanes.dead(q, { offset: 10 })).toEqual([]);
  });

  it('dead() reads past one script\'s 250 rows, in order, from any offset', async () => {
    const lanes = lanesOn(client);
    const q = queues.queue();
    const ids = await lanes.submitMany(q, Array.from({ length: 600 }, (_, i) => ({ group: `g${i % 7}`, payload: i })));
    for (let left = 600; left > 0;) {
      const { jobs } = await lanes.claimMany(q, 100);
      for (const j of jobs) await lanes.fail(q, j.id, j.attempt, 'x', { dead: true });
      left -= jobs.length;
    }
    const all = (await lanes.dead(q)).map((j) => j.id);
    expect(all).toHaveLength(600);
    expect(new Set(all).size).toBe(600);
    expect((await lanes.dead(q, { offset: 100, count: 300 })).map((j) => j.id)).toEqual(all.slice(100, 400));
    expect((await lanes.dead(q, { offset: 590, count: 300 })).map((j) => j.id)).toEqual(all.slice(590));
  });
});

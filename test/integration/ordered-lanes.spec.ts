import fc from 'fast-check';
import type IORedis from 'ioredis';
import { EchoMqError } from '../../lib/errors';
import type { LaneJob } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import { engineFixture, serverTimeMs, snapshotAll, waitFor, waitPastServerTime } from '../support/engine';
import { lanesOn } from '../support/lanes';

/**
 * Ordered lanes (contract, "Ordered lanes", fairness 9): at most one job of the lane active, a failed
 * job keeps the head through its backoff with the lane off the ring, a dead job lets the next go, a
 * reap and retryDead put the job back at the head. The property at the end checks fairness 9 over
 * random plans of outcomes.
 */
describe('ordered lanes', () => {
  const engine = engineFixture({ backoff: { delayMs: 150 } });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  const n = (job: LaneJob | null): number => (job!.payload as { i: number }).i;

  it('serves one job of an ordered lane at a time, beside plain lanes that keep flowing; off makes it plain again', async () => {
    const q = queues.queue();
    await lanes.ordered(q, 'o', true);
    expect(await lanes.lane(q, 'o')).toMatchObject({ ordered: true, limit: null });
    await lanes.submitMany(q, [0, 1, 2, 3].map((i) => ({ group: 'o', payload: { i } })));
    await lanes.submitMany(q, [0, 1, 2].map((i) => ({ group: 'p', payload: { i } })));
    const first = await lanes.claimMany(q, 10);
    expect(first.jobs.map((j) => `${j.group}${n(j)}`)).toEqual(['o0', 'p0', 'p1', 'p2']);
    expect(await lanes.lane(q, 'o')).toMatchObject({ active: 1, inRing: false });
    expect(await lanes.claim(q)).toBeNull();
    await lanes.complete(q, first.jobs[0].id, first.jobs[0].attempt);
    const wt = await lanes.wclaim(q);
    expect(wt.map((j) => `${j.group}${n(j)}`)).toEqual(['o1']);
    await lanes.ordered(q, 'o', false);
    expect(await lanes.lane(q, 'o')).toMatchObject({ ordered: false, limit: null, inRing: true });
    expect((await lanes.claimMany(q, 10)).jobs.map(n)).toEqual([2, 3]);
  });

  it('a failed job keeps the head through its backoff, the lane off the ring, then is served before any later job', async () => {
    const q = queues.queue();
    await lanes.ordered(q, 'o', true);
    await lanes.submitMany(q, [0, 1, 2].map((i) => ({ group: 'o', payload: { i } })));
    await lanes.submit(q, 'p', { i: 0 });
    const held = (await lanes.claim(q))!;
    expect(n(held)).toBe(0);
    expect(await lanes.fail(q, held.id, held.attempt, new Error('flaky'))).toBe('retry');
    const during = await lanes.lane(q, 'o');
    expect(during).toMatchObject({ ordered: true, pending: 2, active: 0, inRing: false });
    // NOTE: the other lane flows while the ordered one waits; the ordered lane serves nothing.
    expect((await lanes.claim(q))!.group).toBe('p');
    expect(await lanes.claim(q)).toBeNull();
    const again = await waitFor('the retry', () => lanes.claim(q), 3_000);
    expect({ id: again.id, attempt: again.attempt }).toEqual({ id: held.id, attempt: 2 });
    await lanes.complete(q, again.id, again.attempt);
    expect(n(await lanes.claim(q))).toBe(1);
  });

  it('a dead job lets the next go; a reap and retryDead put a job back at the head', async () => {
    const q = queues.queue();
    await lanes.ordered(q, 'o', true);
    await lanes.submitMany(q, [0, 1, 2].map((i) => ({ group: 'o', payload: { i } })));
    const doomed = (await lanes.claim(q))!;
    expect(await lanes.fail(q, doomed.id, doomed.attempt, new Error('bad'), { dead: true })).toBe('dead');
    const next = (await lanes.claim(q, { leaseMs: 30 }))!;
    expect(n(next)).toBe(1);
    await waitPastServerTime(client, next.leaseUntil + 1);
    expect(await lanes.reap(q)).toBe(1);
    expect(await lanes.retryDead(q, doomed.id)).toBe(true);
    // NOTE: the dead job went back at its mint position, ahead of the reaped one.
    const order: number[] = [];
    for (let k = 0; k < 3; k++) {
      const job = (await lanes.claim(q))!;
      expect(await lanes.claim(q)).toBeNull();
      order.push(n(job));
      await lanes.complete(q, job.id, job.attempt);
    }
    expect(order).toEqual([0, 1, 2]);
  });

  it('ordered off and on again while its failed head waits out the backoff: the retry holds the lane again and goes first', async () => {
    const q = queues.queue();
    await lanes.ordered(q, 'o', true);
    await lanes.submitMany(q, [0, 1, 2].map((i) => ({ group: 'o', payload: { i } })));
    const held = (await lanes.claim(q))!;
    await lanes.fail(q, held.id, held.attempt, new Error('flaky'), { backoff: { delayMs: 600 } });
    expect(await lanes.claim(q)).toBeNull();
    await lanes.ordered(q, 'o', false);
    expect(await lanes.lane(q, 'o')).toMatchObject({ ordered: false, inRing: true });
    await lanes.ordered(q, 'o', true);
    expect(await lanes.lane(q, 'o')).toMatchObject({ ordered: true, inRing: false, pending: 2 });
    expect(await lanes.claim(q)).toBeNull();
    const order: number[] = [];
    while (order.length < 3) {
      const job = await waitFor('the next job', () => lanes.claim(q), 3_000);
      order.push(n(job));
      await lanes.complete(q, job.id, job.attempt);
    }
    expect(order).toEqual([0, 1, 2]);
    // The held id went with its promotion: ordered off and on again now holds nothing.
    await lanes.submit(q, 'o', { i: 3 });
    await lanes.ordered(q, 'o', false);
    await lanes.ordered(q, 'o', true);
    expect(n(await lanes.claim(q))).toBe(3);
  });

  it('cancelling or draining the retry a lane is held for lets the lane go', async () => {
    const q = queues.queue();
    await lanes.ordered(q, 'o', true);
    await lanes.submitMany(q, [0, 1].map((i) => ({ group: 'o', payload: { i } })));
    let job = (await lanes.claim(q))!;
    await lanes.fail(q, job.id, job.attempt, new Error('x'), { backoff: { delayMs: 3_600_000 } });
    expect(await lanes.claim(q)).toBeNull();
    expect(await lanes.cancel(q, job.id)).toBe(true);
    expect(await lanes.lane(q, 'o')).toMatchObject({ inRing: true, pending: 1 });
    job = (await lanes.claim(q))!;
    expect(n(job)).toBe(1);
    await lanes.submit(q, 'o', { i: 2 });
    await lanes.fail(q, job.id, job.attempt, new Error('x'), { backoff: { delayMs: 3_600_000 } });
    expect(await lanes.claim(q)).toBeNull();
    expect(await lanes.drain(q, { group: 'o' })).toBe(2);
    await lanes.submit(q, 'o', { i: 3 });
    expect(n(await lanes.claim(q))).toBe(3);
  });

  it("keeps the lane's own ceiling while ordered and gives it back when it is not", async () => {
    const q = queues.queue();
    await lanes.limit(q, 'o', 3);
    await lanes.ordered(q, 'o', true);
    await lanes.ordered(q, 'o', true);
    expect(await lanes.lane(q, 'o')).toMatchObject({ ordered: true, limit: 3 });
    await lanes.limit(q, 'o', 2);
    await lanes.submitMany(q, [0, 1, 2, 3].map((i) => ({ group: 'o', payload: { i } })));
    expect((await lanes.claimMany(q, 10)).jobs.map(n)).toEqual([0]);
    expect(await lanes.lane(q, 'o')).toMatchObject({ ordered: true, limit: 2, active: 1 });
    await lanes.ordered(q, 'o', false);
    expect(await lanes.lane(q, 'o')).toMatchObject({ ordered: false, limit: 2 });
    expect((await lanes.claimMany(q, 10)).jobs.map(n)).toEqual([1]);
    expect((await lanes.lanes(q)).find((l) => l.group === 'o')).toMatchObject({ limit: 2, ordered: false });
  });

  it('refuses an `on` that is not a boolean, naming it, and writes nothing', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'o', { i: 0 });
    const before = await snapshotAll(client);
    for (const bad of [1, 0, 'true', null, undefined, {}]) {
      const err = await lanes.ordered(q, 'o', bad as never).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(EchoMqError);
      expect((err as EchoMqError).argument).toBe('on');
    }
    const group = await lanes.ordered(q, '', true).then(() => null, (e: unknown) => e);
    expect((group as EchoMqError).argument).toBe('group');
    expect(await snapshotAll(client)).toEqual(before);
  });

  it('with compat on, a failed head is retried at once at the head (the reference would not let a held lane go)', async () => {
    const compat = lanesOn(client, { compat: 'echomq', backoff: { delayMs: 3_600_000 } });
    const q = queues.queue();
    await compat.ordered(q, 'o', true);
    await compat.submitMany(q, [0, 1].map((i) => ({ group: 'o', payload: { i } })));
    const job = (await compat.claim(q))!;
    expect(await compat.claim(q)).toBeNull();
    expect(await compat.fail(q, job.id, job.attempt, new Error('x'))).toBe('retry');
    const again = (await compat.claim(q))!;
    expect({ id: again.id, attempt: again.attempt }).toEqual({ id: job.id, attempt: 2 });
  });

  // One step of a plan: what happens to the job the claimer holds next.
  type Outcome = 'complete' | 'retry' | 'retryLater' | 'die' | 'expire';
  const OUTCOME = fc.constantFrom<Outcome>('complete', 'complete', 'retry', 'retryLater', 'die', 'expire');

  it('fairness 9: over random plans of failures, deaths and expired leases, completions come in submit order', async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 3, max: 12 }), fc.array(OUTCOME, { minLength: 5, maxLength: 40, size: 'max' }),
      fc.integer({ min: 1, max: 3 }), async (jobs, plan, maxAttempts) => {
        const q = queues.queue();
        await lanes.ordered(q, 'o', true);
        const ids = await lanes.submitMany(q, Array.from({ length: jobs }, (_, i) => ({ group: 'o', payload: { i }, opts: { maxAttempts } })));
        await lanes.submitMany(q, Array.from({ length: 5 }, (_, i) => ({ group: 'p', payload: { i } })));
        const completed: string[] = [];
        const dead = new Set<string>();
        let step = 0;
        while (completed.length + dead.size < jobs) {
          const batch = await lanes.claimMany(q, 3, { leaseMs: 40 });
          const mine = batch.jobs.filter((j) => j.group === 'o');
          // The ceiling of an ordered lane: never two of its jobs at once.
          expect(mine.length).toBeLessThanOrEqual(1);
          for (const other of batch.jobs.filter((j) => j.group !== 'o')) await lanes.complete(q, other.id, other.attempt);
          if (mine.length === 0) {
            expect((await lanes.lane(q, 'o')).active).toBe(0);
            await waitPastServerTime(client, (await serverTimeMs(client)) + 20);
            await lanes.reap(q);
            continue;
          }
          const job = mine[0];
          const what = plan[step++ % plan.length];
          if (what === 'complete') {
            if (await lanes.complete(q, job.id, job.attempt)) completed.push(job.id);
          } else if (what === 'expire') {
            await waitPastServerTime(client, job.leaseUntil);
            await lanes.reap(q);
          } else {
            const backoff = { delayMs: what === 'retryLater' ? 25 : 0 };
            const r = await lanes.fail(q, job.id, job.attempt, new Error(what), { backoff, dead: what === 'die' });
            if (r === 'dead') dead.add(job.id);
          }
          // NOTE: a reaped lease whose attempts are spent dies too.
          for (const d of await lanes.dead(q)) dead.add(d.id);
        }
        expect(completed).toEqual(ids.filter((id) => !dead.has(id)));
        await lanes.obliterate(q, { force: true });
      }), { numRuns: 25 });
  }, 120_000);
});

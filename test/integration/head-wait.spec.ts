import IORedis from 'ioredis';
import { mintJobId } from '../../lib/ids/job-id';
import type { LanesService } from '../../lib/lanes.service';
import { engineFixture, serverTimeMs, waitPastServerTime } from '../support/engine';

/**
 * LaneInfo.headWaitMs, the starvation signal: how long a lane's head has been ready, on the server
 * clock, from its submit or from when it came back (a delay or backoff due, a reap), never counting
 * the delay itself; it keeps ageing while the lane is paused; null for a lane with nothing pending.
 */
describe('head age (LaneInfo.headWaitMs)', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  /** The lane's head wait, with the server time it was read at. */
  const headWait = async (q: string, g: string) => {
    const before = await serverTimeMs(client);
    const { headWaitMs } = await lanes.lane(q, g);
    return { headWaitMs, before, after: await serverTimeMs(client) };
  };

  it('is null for an empty or unknown lane, and counts from the submit of the head on the server clock', async () => {
    const q = queues.queue();
    expect((await lanes.lane(q, 'nobody')).headWaitMs).toBeNull();
    const t0 = await serverTimeMs(client);
    await lanes.submit(q, 'a', { i: 0 });
    const t1 = await serverTimeMs(client);
    await waitPastServerTime(client, t1 + 150);
    const { headWaitMs, before, after } = await headWait(q, 'a');
    // Between (read - latest possible submit) and (read - earliest), a ms of rounding either way.
    expect(headWaitMs).toBeGreaterThanOrEqual(before - t1 - 1);
    expect(headWaitMs).toBeLessThanOrEqual(after - t0 + 1);
    expect(headWaitMs).toBeGreaterThanOrEqual(150);

    // The next head was submitted later: once the first is served, the age is the second's.
    const t2 = await serverTimeMs(client);
    await lanes.submit(q, 'a', { i: 1 });
    const job = (await lanes.claim(q))!;
    const next = await headWait(q, 'a');
    expect(next.headWaitMs).toBeLessThanOrEqual(next.after - t2 + 1);
    await lanes.complete(q, job.id, job.attempt);
    await lanes.claim(q).then((j) => lanes.complete(q, j!.id, j!.attempt));
    expect((await lanes.lane(q, 'a')).headWaitMs).toBeNull();
  });

  it('a delayed job and a retry count from when they were due, not from their submit', async () => {
    const q = queues.queue();
    // NOTE: the server's clock before each call bounds the clock the call's script read (after it would not).
    const beforeSubmit = await serverTimeMs(client);
    await lanes.submit(q, 'd', { i: 0 }, { delayMs: 300 });
    expect((await lanes.lane(q, 'd')).headWaitMs).toBeNull();
    const submitted = await serverTimeMs(client);
    await waitPastServerTime(client, submitted + 400);
    await lanes.promote(q);
    const due = await headWait(q, 'd');
    // Due at submit + 300: its wait is at most (read - submit - 300), well under its age since submit.
    expect(due.headWaitMs).toBeLessThanOrEqual(due.after - beforeSubmit - 300 + 5);

    const job = (await lanes.claim(q))!;
    const beforeFail = await serverTimeMs(client);
    await lanes.fail(q, job.id, job.attempt, new Error('again'), { backoff: { delayMs: 200 } });
    const failed = await serverTimeMs(client);
    await waitPastServerTime(client, failed + 350);
    await lanes.promote(q);
    const retry = await headWait(q, 'd');
    expect(retry.headWaitMs).toBeGreaterThanOrEqual(0);
    expect(retry.headWaitMs).toBeLessThanOrEqual(retry.after - beforeFail - 200 + 5);
  });

  it('a reaped lease puts the job back as ready now; an id minted before its submit counts from the submit', async () => {
    const q = queues.queue();
    const id = mintJobId();
    await new Promise((r) => setTimeout(r, 300));
    const submitted = await serverTimeMs(client);
    await lanes.submit(q, 'r', { i: 0 }, { jobId: id });
    const own = await headWait(q, 'r');
    // Its mint time is 300 ms before the submit; the row's submit time is what counts.
    expect(own.headWaitMs).toBeLessThanOrEqual(own.after - submitted + 1);
    expect(own.headWaitMs).toBeLessThan(250);

    const job = (await lanes.claim(q, { leaseMs: 50 }))!;
    await waitPastServerTime(client, job.leaseUntil + 200);
    const reapedAt = await serverTimeMs(client);
    await lanes.reap(q);
    const back = await headWait(q, 'r');
    expect(back.headWaitMs).toBeLessThanOrEqual(back.after - reapedAt + 5);
  });

  it('keeps ageing while the lane is paused, and is reported by lanes, scanLanes and topLanes alike', async () => {
    const q = queues.queue();
    await lanes.submitMany(q, [{ group: 'p', payload: 0 }, { group: 'p', payload: 1 }, { group: 'x', payload: 2 }]);
    await lanes.pause(q, 'p', { reason: 'looking' });
    const first = (await lanes.lane(q, 'p')).headWaitMs!;
    const t = await serverTimeMs(client);
    await waitPastServerTime(client, t + 200);
    const later = (await lanes.lane(q, 'p')).headWaitMs!;
    expect(later - first).toBeGreaterThanOrEqual(190);
    const [listed] = (await lanes.lanes(q)).filter((l) => l.group === 'p');
    const [scanned] = (await lanes.scanLanes(q, { count: 10 })).lanes.filter((l) => l.group === 'p');
    const [top] = (await lanes.topLanes(q, 10)).filter((l) => l.group === 'p');
    for (const row of [listed, scanned, top]) {
      expect(row.headWaitMs).toBeGreaterThanOrEqual(later);
      expect(row.headWaitMs).toBeLessThan(later + 2_000);
    }
  });
});

import type IORedis from 'ioredis';
import type { LaneJob } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import { engineFixture, keysOf, waitPastServerTime } from '../support/engine';
import { lanesOn } from '../support/lanes';

const LEASE_MS = 60_000;
/** When a job was claimed, by the server clock: its lease started then. */
const claimedAt = (job: LaneJob): number => job.leaseUntil - LEASE_MS;

/** The most claims that any window of `perMs` ms holds (windows [t, t + perMs) starting at each claim). */
function busiestWindow(times: number[], perMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (j < t.length && t[j] < t[i] + perMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

describe('rate ceilings per lane', () => {
  const fx = engineFixture();

  it('three claimers hammering for 3 s: no 1,000 ms window holds more than 5 claims of the lane, about 15 in all, and the other lanes keep their turns', async () => {
    const q = fx.queues.queue();
    await fx.lanes.rate(q, 'r', { max: 5, perMs: 1_000 });
    await fx.lanes.submitMany(q, Array.from({ length: 100 }, (_, i) => ({ group: 'r', payload: { i } })));
    await fx.lanes.submitMany(q, ['x', 'y'].flatMap((g) => Array.from({ length: 50 }, (_, i) => ({ group: g, payload: { i } }))));
    const clients: IORedis[] = [0, 1, 2].map(() => fx.server.client());
    const rated: number[] = [];
    const others: number[] = [];
    const deadline = Date.now() + 3_000;
    const hammer = async (lanes: LanesService) => {
      while (Date.now() < deadline) {
        const { jobs } = await lanes.claimMany(q, 1, { leaseMs: LEASE_MS });
        for (const job of jobs) {
          if (job.group === 'r') {
            rated.push(claimedAt(job));
          } else {
            others.push(claimedAt(job));
            // NOTE: the other lanes are kept full, so they always have a turn to take.
            await lanes.submit(q, job.group, job.payload);
          }
          expect(await lanes.complete(q, job.id, job.attempt)).toBe(true);
        }
      }
    };
    try {
      await Promise.all(clients.map((c) => hammer(lanesOn(c))));
    } finally {
      await Promise.all(clients.map((c) => c.quit()));
    }
    const span = Math.max(...rated) - Math.min(...rated);
    expect(busiestWindow(rated, 1_000)).toBeLessThanOrEqual(5);
    expect(rated.length).toBeGreaterThanOrEqual(14);
    expect(rated.length).toBeLessThanOrEqual(5 * (Math.floor(span / 1_000) + 1));
    expect(rated.length).toBeLessThanOrEqual(20);
    // The other lanes were served all along, in every 250 ms of the run: from their first claim to
    // their last (a first claim late in a loaded run leaves the run's last quarter short), which
    // comes within the run's last 500 ms.
    const start = Math.min(...others);
    const end = Math.max(...others);
    expect(deadline - end).toBeLessThan(500);
    const quarters = new Set(others.map((t) => Math.floor((t - start) / 250)));
    for (let s = 0; s <= Math.floor((end - start) / 250); s++) expect({ quarter: s, served: quarters.has(s) }).toEqual({ quarter: s, served: true });
    expect(others.length).toBeGreaterThan(rated.length * 10);
  });

  it('a full window takes the lane off the ring until its oldest claim ages out; claims say when, and the lane rejoins at the tail', async () => {
    const q = fx.queues.queue();
    await fx.lanes.rate(q, 'r', { max: 2, perMs: 400 });
    await fx.lanes.submitMany(q, [1, 2, 3].map((i) => ({ group: 'r', payload: { i } })));
    const first = await fx.lanes.claimMany(q, 5, { leaseMs: LEASE_MS });
    expect(first.jobs.map((j) => j.payload)).toEqual([{ i: 1 }, { i: 2 }]);
    const reopenAt = claimedAt(first.jobs[0]) + 400;
    expect(first.dueInMs).toBeGreaterThan(0);
    expect(first.dueInMs).toBeLessThanOrEqual(400);
    expect(await fx.lanes.lane(q, 'r')).toMatchObject({ pending: 1, inRing: false, rate: { max: 2, perMs: 400 } });
    expect(await fx.client.lrange(keysOf(q).ring, 0, -1)).toEqual([]);
    expect(await fx.lanes.claim(q)).toBeNull();
    // A submit to the parked lane does not put it back before its window has room.
    await fx.lanes.submit(q, 'r', { i: 4 });
    await fx.lanes.submit(q, 's', { i: 5 });
    expect((await fx.lanes.claim(q, { leaseMs: LEASE_MS }))!.group).toBe('s');
    expect(await fx.lanes.claim(q)).toBeNull();
    await waitPastServerTime(fx.client, reopenAt - 1);
    // Read after the window reopened and before any claim: reported as back on the ring.
    expect(await fx.lanes.lane(q, 'r')).toMatchObject({ pending: 2, inRing: true });
    const again = await fx.lanes.claimMany(q, 5, { leaseMs: LEASE_MS });
    expect(again.jobs.map((j) => j.payload)).toEqual([{ i: 3 }, { i: 4 }]);
    expect(claimedAt(again.jobs[0])).toBeGreaterThanOrEqual(reopenAt);
  });

  it('rate, ceiling and weight together: wclaim takes min(weight, depth, limit - active, room in the window)', async () => {
    const q = fx.queues.queue();
    const { lanes } = fx;
    await lanes.weight(q, 'r', 3);
    await lanes.limit(q, 'r', 2);
    await lanes.rate(q, 'r', { max: 5, perMs: 60_000 });
    await lanes.submitMany(q, Array.from({ length: 10 }, (_, i) => ({ group: 'r', payload: { i } })));
    await lanes.submit(q, 'o', { i: 0 });
    const served: number[] = [];
    for (let turn = 0; turn < 6; turn++) {
      const jobs = await lanes.wclaim(q, { leaseMs: LEASE_MS });
      const mine = jobs.filter((j) => j.group === 'r');
      served.push(mine.length);
      expect(mine.length).toBeLessThanOrEqual(2);
      for (const j of jobs) expect(await lanes.complete(q, j.id, j.attempt)).toBe(true);
    }
    // Turns on r: 2 (ceiling), 2 (ceiling), 1 (the window's room), then parked for the minute.
    expect(served.filter((n) => n > 0)).toEqual([2, 2, 1]);
    expect(served.reduce((a, b) => a + b, 0)).toBe(5);
    const info = await lanes.lane(q, 'r');
    expect(info).toMatchObject({ pending: 5, active: 0, weight: 3, limit: 2, inRing: false, rate: { max: 5, perMs: 60_000 } });
    // The dueIn of a claim is the window's reopening, about a minute away.
    const { dueInMs } = await lanes.claimMany(q, 1);
    expect(dueInMs).toBeGreaterThan(50_000);
    expect(dueInMs).toBeLessThanOrEqual(60_000);
    // A higher rate gives room at once; removing the rate puts the lane back for good.
    await lanes.rate(q, 'r', { max: 6, perMs: 60_000 });
    expect(await lanes.lane(q, 'r')).toMatchObject({ inRing: true });
    const one = await lanes.wclaim(q, { leaseMs: LEASE_MS });
    expect(one).toHaveLength(1);
    await lanes.complete(q, one[0].id, one[0].attempt);
    expect(await lanes.lane(q, 'r')).toMatchObject({ inRing: false });
    await lanes.rate(q, 'r', null);
    expect(await lanes.lane(q, 'r')).toMatchObject({ inRing: true, rate: null, pending: 4 });
    expect(await lanes.wclaim(q, { leaseMs: LEASE_MS })).toHaveLength(2);
    expect(await fx.client.exists(keysOf(q).rateLog('r'))).toBe(0);
    expect(await fx.client.zrange(keysOf(q).timers, 0, -1)).toEqual([]);
  });

  it('a job claimed again (here after a release) counts again', async () => {
    const q = fx.queues.queue();
    await fx.lanes.rate(q, 'r', { max: 2, perMs: 60_000 });
    await fx.lanes.submitMany(q, [1, 2].map((i) => ({ group: 'r', payload: i })));
    const first = (await fx.lanes.claim(q))!;
    expect(await fx.lanes.release(q, first.id, first.attempt)).toBe(true);
    const again = (await fx.lanes.claim(q))!;
    expect(again.id).toBe(first.id);
    // Two claims of one job fill the window: the second job waits for it.
    expect(await fx.lanes.claim(q)).toBeNull();
    expect(await fx.lanes.lane(q, 'r')).toMatchObject({ pending: 1, active: 1, inRing: false });
  });

  it('a lane without a rate leaves no rate state behind, and the log of a rated lane stays at most max long', async () => {
    const q = fx.queues.queue();
    await fx.lanes.rate(q, 'r', { max: 3, perMs: 200 });
    await fx.lanes.submitMany(q, Array.from({ length: 8 }, (_, i) => ({ group: i % 2 ? 'r' : 'p', payload: { i } })));
    for (let i = 0; i < 20; i++) {
      const job = await fx.lanes.claim(q);
      if (job) await fx.lanes.complete(q, job.id, job.attempt);
      expect(await fx.client.llen(keysOf(q).rateLog('r'))).toBeLessThanOrEqual(3);
    }
    expect(await fx.client.exists(keysOf(q).rateLog('p'))).toBe(0);
    const ttl = await fx.client.pttl(keysOf(q).rateLog('r'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(200);
  });

  it('stats() agrees with lane() once a full window has reopened, before any claim: the lane is counted on the ring', async () => {
    const q = fx.queues.queue();
    await fx.lanes.rate(q, 'b', { max: 1, perMs: 200 });
    await fx.lanes.submitMany(q, [1, 2].map((i) => ({ group: 'b', payload: i })));
    const first = (await fx.lanes.claim(q, { leaseMs: LEASE_MS }))!;
    expect(await fx.lanes.stats(q)).toMatchObject({ ringLength: 0, pausedLanes: 0, active: 1, pending: 1 });
    await waitPastServerTime(fx.client, claimedAt(first) + 400);
    expect(await fx.lanes.lane(q, 'b')).toMatchObject({ pending: 1, inRing: true });
    expect(await fx.lanes.stats(q)).toMatchObject({ ringLength: 1, pausedLanes: 0, active: 1, pending: 1 });
    // The read applied the reopening as a claim would: the lane is back on the ring, its timer gone.
    expect(await fx.client.lrange(keysOf(q).ring, 0, -1)).toEqual(['b']);
    expect(await fx.client.zrange(keysOf(q).timers, 0, -1)).toEqual(['~rate']);
    expect(await fx.lanes.lane(q, 'b')).toMatchObject({ pending: 1, inRing: true });
    expect((await fx.lanes.claim(q))!.payload).toBe(2);
  });

  it('position() agrees with lane() once a full window has reopened, before any claim: the job\'s lane is at the tail of the ring', async () => {
    const q = fx.queues.queue();
    await fx.lanes.rate(q, 'b', { max: 1, perMs: 200 });
    const [, second] = await fx.lanes.submitMany(q, [1, 2].map((i) => ({ group: 'b', payload: i })));
    const first = (await fx.lanes.claim(q, { leaseMs: LEASE_MS }))!;
    await fx.lanes.submit(q, 'c', 3);
    expect(await fx.lanes.position(q, second)).toMatchObject({ laneRank: 0, ringIndex: null, ringLength: 1, exact: false });
    await waitPastServerTime(fx.client, claimedAt(first) + 400);
    expect(await fx.lanes.lane(q, 'b')).toMatchObject({ pending: 1, inRing: true });
    expect(await fx.lanes.position(q, second)).toMatchObject({ laneRank: 0, ringIndex: 1, ringLength: 2, ahead: 1, exact: true });
    expect(await fx.client.lrange(keysOf(q).ring, 0, -1)).toEqual(['c', 'b']);
    expect((await fx.lanes.claim(q))!.payload).toBe(3);
    expect((await fx.lanes.claim(q))!.payload).toBe(2);
  });
});

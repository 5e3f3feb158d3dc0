import IORedis from 'ioredis';
import type { LaneJob } from '../../lib/interfaces';
import { LanesService } from '../../lib/lanes.service';
import { lanesOn, snapshot, testQueue } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';
import { report, waitFor } from './support/wait';

/** Waits until the server clock has passed a lease deadline. */
async function leasePassed(client: IORedis, leaseUntil: number): Promise<void> {
  await waitFor('the lease to run out on the server clock', async () => {
    const [s, us] = await client.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000) > leaseUntil;
  });
}

/** A worker whose lease ran out, was reaped and re-claimed, must not be able to finish the job. */
describe('faults: a stale worker after its lease was reaped', () => {
  let server: TestRedisServer;
  let client: IORedis;
  let lanes: LanesService;

  beforeAll(async () => {
    server = await TestRedisServer.start();
    client = server.client();
    lanes = lanesOn(client);
  });
  afterAll(async () => {
    await client.quit();
    await server.stop();
  });

  it('is refused before and after the re-claim; the new holder completes', async () => {
    const q = testQueue();
    const id = await lanes.submit(q, 'g', { n: 1 });
    const stale = (await lanes.claim(q, { leaseMs: 100 }))!;
    expect(stale).toMatchObject({ id, attempt: 1 });
    await leasePassed(client, stale.leaseUntil);
    expect(await lanes.reap(q)).toBe(1);

    // Reaped, not yet re-claimed: the job waits at the head of its lane, and the stale token changes nothing.
    const reaped = await snapshot(client, q);
    expect(await lanes.complete(q, id, stale.attempt)).toBe(false);
    expect(await lanes.extend(q, id, stale.attempt, 10_000)).toBe(false);
    expect(await lanes.fail(q, id, stale.attempt, new Error('late'))).toBe('stale');
    expect(await snapshot(client, q)).toEqual(reaped);

    const fresh = (await lanes.claim(q, { leaseMs: 60_000 }))!;
    expect(fresh).toMatchObject({ id, attempt: 2 });
    const held = await snapshot(client, q);
    expect(await lanes.complete(q, id, stale.attempt)).toBe(false);
    expect(await lanes.extend(q, id, stale.attempt, 10_000)).toBe(false);
    expect(await lanes.fail(q, id, stale.attempt, new Error('late'))).toBe('stale');
    expect(await snapshot(client, q)).toEqual(held);

    expect(await lanes.complete(q, id, fresh.attempt)).toBe(true);
    expect(await lanes.stats(q)).toMatchObject({ totals: { completed: 1, retried: 0, dead: 0 }, paused: false });
    expect(await lanes.lanes(q)).toEqual([]);
  });

  it('every stale completion of 300 re-claimed jobs is refused, while held and after', async () => {
    const q = testQueue();
    const n = 300;
    await lanes.submitMany(q, Array.from({ length: n }, (_, i) => ({ group: `g${i % 6}`, payload: { i } })));
    const first = (await lanes.claimMany(q, n, { leaseMs: 150 })).jobs;
    expect(first).toHaveLength(n);
    // NOTE: 300 jobs take two claim scripts (250 a call), whose leases end a moment apart.
    await leasePassed(client, Math.max(...first.map((j) => j.leaseUntil)));
    expect(await lanes.reap(q)).toBe(n);

    const second: LaneJob[] = (await lanes.claimMany(q, n, { leaseMs: 60_000 })).jobs;
    expect(second).toHaveLength(n);
    expect(second.every((j) => j.attempt === 2)).toBe(true);

    let accepted = 0;
    for (const j of first) if (await lanes.complete(q, j.id, j.attempt)) accepted += 1;
    let newHolder = 0;
    for (const j of second) if (await lanes.complete(q, j.id, j.attempt)) newHolder += 1;
    for (const j of first) if (await lanes.complete(q, j.id, j.attempt)) accepted += 1;

    report(`stale worker: stale completions accepted ${accepted} of ${2 * n} tried; new holder's accepted ${newHolder} of ${n}`);
    expect(accepted).toBe(0);
    expect(newHolder).toBe(n);
    expect(await lanes.stats(q)).toMatchObject({ totals: { completed: n, retried: 0, dead: 0 }, paused: false });
    expect(await lanes.lanes(q)).toEqual([]);
  });
});

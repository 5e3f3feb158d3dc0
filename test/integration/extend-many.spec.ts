import { engineFixture, keysOf, serverTimeMs } from '../support/engine';

describe('extendMany', () => {
  const fx = engineFixture();

  it('renews every lease still held in one call, fenced per job like extend; a lost one gets 0 and is not touched', async () => {
    const q = fx.queues.queue();
    await fx.lanes.submitMany(q, [1, 2, 3].map((i) => ({ group: `g${i}`, payload: i })));
    const { jobs } = await fx.lanes.claimMany(q, 3, { leaseMs: 1_000 });
    expect(jobs).toHaveLength(3);
    // The second job is completed: its token is spent.
    expect(await fx.lanes.complete(q, jobs[1].id, jobs[1].attempt)).toBe(true);
    const scriptCalls = async () => {
      const stats = await fx.client.info('commandstats');
      return ['evalsha', 'eval', 'fcall', 'fcall_ro'].reduce((n, c) => n + Number(new RegExp(`cmdstat_${c}:calls=(\\d+)`).exec(stats)?.[1] ?? 0), 0);
    };
    const calls = await scriptCalls();
    const before = await serverTimeMs(fx.client);
    const leases = [jobs[0], jobs[1], jobs[2]].map((j) => ({ jobId: j.id, token: j.attempt }));
    leases.push({ jobId: jobs[2].id, token: jobs[2].attempt + 1 });
    const until = await fx.lanes.extendMany(q, leases, 30_000);
    expect((await scriptCalls()) - calls).toBe(1);
    expect(until[1]).toBe(0);
    expect(until[3]).toBe(0);
    expect(until[0]).toBe(until[2]);
    expect(until[0]).toBeGreaterThanOrEqual(before + 30_000);
    for (const j of [jobs[0], jobs[2]]) expect(Number(await fx.client.zscore(keysOf(q).active, j.id))).toBe(until[0]);
    expect(await fx.client.zscore(keysOf(q).active, jobs[1].id)).toBeNull();
    expect(await fx.lanes.extendMany(q, [], 1_000)).toEqual([]);
  });

  it('splits long lists into chunks and keeps the order', async () => {
    const q = fx.queues.queue();
    await fx.lanes.submitMany(q, Array.from({ length: 700 }, (_, i) => ({ group: `g${i % 7}`, payload: i })));
    const { jobs } = await fx.lanes.claimMany(q, 700, { leaseMs: 1_000 });
    const stale = new Set([0, 499, 500, 699]);
    const leases = jobs.map((j, i) => ({ jobId: j.id, token: stale.has(i) ? j.attempt + 1 : j.attempt }));
    const until = await fx.lanes.extendMany(q, leases, 20_000);
    expect(until).toHaveLength(700);
    until.forEach((u, i) => expect({ i, renewed: u > 0 }).toEqual({ i, renewed: !stale.has(i) }));
  });
});

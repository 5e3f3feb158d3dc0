import IORedis from 'ioredis';
import { snapshot } from '../support/lanes';
import { engineFixture, keysOf } from '../support/engine';
import { EchoMqError } from '../../lib/errors';
import type { LaneJob } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';

describe('completeMany (batched acks)', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  it('acks each job exactly as complete would, refusing stale tokens one by one', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', 1, { dedupKey: 'k1' });
    await lanes.submit(q, 'b', 2);
    await lanes.submit(q, 'c', 3);
    const { jobs } = await lanes.claimMany(q, 3);
    const results = await lanes.completeMany(q, [
      { jobId: jobs[0].id, token: jobs[0].attempt },
      { jobId: jobs[1].id, token: jobs[1].attempt + 1 },
      { jobId: jobs[2].id, token: jobs[2].attempt },
      { jobId: jobs[0].id, token: jobs[0].attempt },
    ]);
    expect(results).toEqual([true, false, true, false]);
    const k = keysOf(q);
    expect(await client.exists(k.job(jobs[0].id), k.job(jobs[2].id))).toBe(0);
    expect(await client.hget(k.job(jobs[1].id), 'state')).toBe('active');
    expect(await client.hgetall(k.dedup)).toEqual({});
    expect(await client.zrange(k.active, 0, -1)).toEqual([jobs[1].id]);
    expect(await client.hgetall(k.gactive)).toEqual({ b: '1' });
    expect((await lanes.stats(q)).totals.completed).toBe(2);
  });

  it('puts a lane parked at its ceiling back on the ring', async () => {
    const q = queues.queue();
    await lanes.limit(q, 'a', 2);
    await lanes.submitMany(q, [0, 1, 2, 3].map((i) => ({ group: 'a', payload: i })));
    const { jobs } = await lanes.claimMany(q, 5);
    expect(jobs).toHaveLength(2);
    expect(await lanes.lane(q, 'a')).toMatchObject({ active: 2, pending: 2, inRing: false });
    await lanes.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt })));
    expect(await lanes.lane(q, 'a')).toMatchObject({ active: 0, pending: 2, inRing: true });
    expect(await client.lrange(keysOf(q).ring, 0, -1)).toEqual(['a']);
  });

  it('takes more than one chunk (500) of acks', async () => {
    const q = queues.queue();
    await lanes.submitMany(q, Array.from({ length: 1_200 }, (_, i) => ({ group: `g${i % 7}`, payload: i })));
    const jobs = [...(await lanes.claimMany(q, 1_000)).jobs, ...(await lanes.claimMany(q, 200)).jobs];
    const results = await lanes.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt })));
    expect(results.filter(Boolean)).toHaveLength(1_200);
    expect(await lanes.lanes(q)).toEqual([]);
    expect(await client.zcard(keysOf(q).active)).toBe(0);
  });

  it.each([
    ['acks', () => 'not an array'],
    ['acks[0]', () => [null]],
    ['acks[0].jobId', () => [{ jobId: 'nope', token: 1 }]],
    // A valid ack before the bad one is not applied either: the whole call is checked first.
    ['acks[1].token', (job: LaneJob) => [{ jobId: job.id, token: job.attempt }, { jobId: job.id, token: 0 }]],
  ])('rejects a bad %s and writes nothing', async (argument, acksFor) => {
    const q = queues.queue();
    await lanes.submit(q, 'a', 1);
    const job = (await lanes.claim(q))!;
    const before = await snapshot(client, q);
    const error = await lanes.completeMany(q, acksFor(job) as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EchoMqError);
    expect((error as EchoMqError).argument).toBe(argument);
    expect(await snapshot(client, q)).toEqual(before);
  });
});

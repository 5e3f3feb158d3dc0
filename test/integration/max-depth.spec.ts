import IORedis from 'ioredis';
import { EchoMqError } from '../../lib/errors';
import type { LanesService } from '../../lib/lanes.service';
import { dirty, engineFixture, serverTimeMs, snapshotAll, waitPastServerTime } from '../support/engine';

describe('maxDepth: a lane that holds at most n', () => {
  const engine = engineFixture({ backoff: { delayMs: 60_000 } });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  /** Runs `call`, expects LANE_FULL naming `argument`, and that the server wrote nothing. */
  async function refusedFull(call: () => Promise<unknown>, argument: string): Promise<EchoMqError> {
    const before = await snapshotAll(client);
    const writes = await dirty(client);
    const error = await call().then(() => null, (err: unknown) => err);
    if (!(error instanceof EchoMqError)) throw new Error(`did not reject with an EchoMqError: ${String(error)}`);
    expect({ code: error.code, argument: error.argument }).toEqual({ code: 'LANE_FULL', argument });
    expect(await dirty(client)).toBe(writes);
    expect(await snapshotAll(client)).toEqual(before);
    return error;
  }

  it('a submit into a lane holding n pending jobs rejects with LANE_FULL and writes nothing; other lanes and a removed ceiling admit', async () => {
    const q = queues.queue();
    await lanes.maxDepth(q, 'a', 3);
    expect((await lanes.lane(q, 'a')).maxDepth).toBe(3);
    for (let i = 0; i < 3; i++) await lanes.submit(q, 'a', { i });
    const error = await refusedFull(() => lanes.submit(q, 'a', { i: 3 }), 'group');
    expect(error.group).toBe('a');
    expect(error.message).toContain('maxDepth');
    await lanes.submit(q, 'b', { i: 0 });
    const job = await lanes.claim(q);
    expect(job!.group).toBe('a');
    await lanes.submit(q, 'a', { i: 3 });
    expect((await lanes.lane(q, 'a')).pending).toBe(3);
    await lanes.maxDepth(q, 'a', null);
    expect((await lanes.lane(q, 'a')).maxDepth).toBeNull();
    await lanes.submit(q, 'a', { i: 4 });
    expect((await lanes.lane(q, 'a')).pending).toBe(4);
  });

  it('delayed submits count until they leave the schedule: cancelled, or promoted and then served', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', { i: 0 }, { delayMs: 3_600_000 });
    // NOTE: a ceiling set after a delayed submit still counts it.
    await lanes.maxDepth(q, 'a', 2);
    const soon = await lanes.submit(q, 'a', { i: 1 }, { delayMs: 1 });
    await refusedFull(() => lanes.submit(q, 'a', { i: 2 }), 'group');
    const later = (await lanes.submitMany(q, [{ group: 'b', payload: 1, opts: { delayMs: 3_600_000 } }]))[0];
    expect(await lanes.cancel(q, later)).toBe(true);
    await waitPastServerTime(client, (await serverTimeMs(client)) + 5);
    expect(await lanes.promote(q)).toBe(1);
    // promoted: pending now, counted once (not as pending and as delayed)
    await refusedFull(() => lanes.submit(q, 'a', { i: 2 }), 'group');
    const served = await lanes.claim(q);
    expect(served!.id).toBe(soon);
    await lanes.submit(q, 'a', { i: 2 });
    await refusedFull(() => lanes.submit(q, 'a', { i: 3 }), 'group');
    const first = (await lanes.dead(q)).length; // none dead: the far delayed job is still scheduled
    expect(first).toBe(0);
    await lanes.drain(q, { group: 'a' });
    await lanes.submit(q, 'a', { i: 3 });
    await lanes.submit(q, 'a', { i: 4 }, { delayMs: 3_600_000 });
    await refusedFull(() => lanes.submit(q, 'a', { i: 5 }), 'group');
  });

  it('retries and reaps of admitted jobs are never refused and do not count', async () => {
    const q = queues.queue();
    await lanes.maxDepth(q, 'a', 1);
    await lanes.submit(q, 'a', { i: 0 });
    const job = await lanes.claim(q);
    expect(await lanes.fail(q, job!.id, job!.attempt, 'boom')).toBe('retry');
    // the retry waits out its backoff in the schedule: the lane holds no job a ceiling counts
    await lanes.submit(q, 'a', { i: 1 });
    const second = await lanes.claim(q, { leaseMs: 1 });
    await waitPastServerTime(client, second!.leaseUntil);
    expect(await lanes.reap(q)).toBe(1);
    expect((await lanes.lane(q, 'a')).pending).toBe(1);
    await refusedFull(() => lanes.submit(q, 'a', { i: 2 }), 'group');
    expect(second!.id).not.toBe(job!.id);
  });

  it('a deduplicated submit into a full lane is not refused: nothing new is admitted', async () => {
    const q = queues.queue();
    await lanes.maxDepth(q, 'a', 1);
    const id = await lanes.submit(q, 'a', { i: 0 }, { dedupKey: 'k' });
    expect(await lanes.submit(q, 'a', { i: 1 }, { dedupKey: 'k' })).toBe(id);
    const own = 'JOB00000000001';
    await lanes.maxDepth(q, 'b', 1);
    await lanes.submit(q, 'b', 1, { jobId: own });
    expect(await lanes.submit(q, 'b', 1, { jobId: own })).toBe(own);
    expect(await lanes.submitMany(q, [{ group: 'a', payload: 2, opts: { dedupKey: 'k' } }, { group: 'b', payload: 1, opts: { jobId: own } }]))
      .toEqual([id, own]);
    await refusedFull(() => lanes.submitMany(q, [{ group: 'a', payload: 2, opts: { dedupKey: 'k' } }, { group: 'a', payload: 3 }]), 'items[1].group');
  });

  it('submitMany admits all or none: one item past a ceiling refuses the call, in one chunk and across chunks', async () => {
    const q = queues.queue();
    await lanes.maxDepth(q, 'a', 3);
    await lanes.submit(q, 'a', 0);
    // two jobs under one dedupKey in one call are one new job
    await refusedFull(() => lanes.submitMany(q, [{ group: 'b', payload: 0 }, { group: 'a', payload: 1 }, { group: 'a', payload: 2 }, { group: 'a', payload: 3 }]), 'items[3].group');
    expect(await lanes.submitMany(q, [{ group: 'a', payload: 1, opts: { dedupKey: 'x' } }, { group: 'a', payload: 1, opts: { dedupKey: 'x' } }, { group: 'a', payload: 2 }]))
      .toHaveLength(3);
    expect((await lanes.lane(q, 'a')).pending).toBe(3);

    // 1,200 items: three chunks of the script; lane c fits 1,000, and the items past it are in the third chunk
    await lanes.maxDepth(q, 'c', 1_000);
    const many = Array.from({ length: 1_200 }, (_, i) => ({ group: i % 2 === 0 ? 'c' : `d${i % 7}`, payload: i }));
    many.push(...Array.from({ length: 401 }, (_, i) => ({ group: 'c', payload: 2_000 + i })));
    await refusedFull(() => lanes.submitMany(q, many), 'items[0].group');
    expect((await lanes.lane(q, 'c')).pending).toBe(0);
    expect((await lanes.lane(q, 'd1')).pending).toBe(0);
    many.pop();
    expect(await lanes.submitMany(q, many)).toHaveLength(1_600);
    expect((await lanes.lane(q, 'c')).pending).toBe(1_000);
    await refusedFull(() => lanes.submit(q, 'c', 'one more'), 'group');
  });

  it('a ceiling counts the lane under a tenant too, and lanes() and scanLanes report it', async () => {
    const q = queues.queue();
    await lanes.maxDepth(q, 'a', 2);
    await lanes.submit(q, 'a', 0, { tenant: 'T' });
    await lanes.submit(q, 'a', 1, { tenant: 'T' });
    await refusedFull(() => lanes.submit(q, 'a', 2, { tenant: 'T' }), 'group');
    expect((await lanes.lanes(q)).find((l) => l.group === 'a')).toMatchObject({ pending: 2, maxDepth: 2, tenant: 'T' });
    expect((await lanes.scanLanes(q)).lanes.find((l) => l.group === 'a')).toMatchObject({ maxDepth: 2 });
  });
});

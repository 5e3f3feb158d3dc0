import IORedis from 'ioredis';
import { engineFixture, keysOf, tag } from '../support/engine';
import type { LanesService } from '../../lib/lanes.service';

describe('wclaim: weighted turns', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  const fill = async (q: string, group: string, n: number) =>
    lanes.submitMany(q, [...Array(n).keys()].map((i) => ({ group, payload: { i } })));

  it('weights 3 and 1 on two deep lanes: served counts are exactly 3 : 1 after every whole turn', async () => {
    const q = queues.queue();
    await fill(q, 'a', 200);
    await fill(q, 'b', 200);
    await lanes.weight(q, 'a', 3);
    await lanes.weight(q, 'b', 1);
    const served = { a: 0, b: 0 } as Record<string, number>;
    for (let turn = 1; turn <= 40; turn++) {
      for (let lane = 0; lane < 2; lane++) {
        const jobs = await lanes.wclaim(q);
        expect(new Set(jobs.map((j) => j.group)).size).toBe(1);
        served[jobs[0].group] += jobs.length;
        for (const j of jobs) await lanes.complete(q, j.id, j.attempt);
      }
      expect(served.a).toBe(3 * turn);
      expect(served.b).toBe(turn);
    }
  });

  it('serves the K heads of a lane in submit order, each with its own token, under one lease', async () => {
    const q = queues.queue();
    await fill(q, 'a', 5);
    await lanes.weight(q, 'a', 4);
    const jobs = await lanes.wclaim(q, { leaseMs: 10_000 });
    expect(jobs.map(tag)).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(jobs.every((j) => j.attempt === 1 && j.leaseUntil === jobs[0].leaseUntil)).toBe(true);
    expect(await client.hget(keysOf(q).gactive, 'a')).toBe('4');
    expect(await client.zcard(keysOf(q).active)).toBe(4);
  });

  it('rotates one step per wclaim, exactly as claim does', async () => {
    const q = queues.queue();
    for (const g of ['a', 'b', 'c']) await fill(q, g, 4);
    await lanes.weight(q, 'b', 2);
    const turns: string[][] = [];
    for (let i = 0; i < 4; i++) turns.push((await lanes.wclaim(q)).map(tag));
    expect(turns).toEqual([['a0'], ['b0', 'b1'], ['c0'], ['a1']]);
  });

  it('clamps K by the lane depth, and the emptied lane leaves the ring', async () => {
    const q = queues.queue();
    await fill(q, 'a', 2);
    await fill(q, 'b', 1);
    await lanes.weight(q, 'a', 5);
    expect((await lanes.wclaim(q)).map(tag)).toEqual(['a0', 'a1']);
    expect((await lanes.lane(q, 'a')).inRing).toBe(false);
    expect(await client.lrange(keysOf(q).ring, 0, -1)).toEqual(['b']);
  });

  it('clamps K by the ceiling headroom (limit − active) and parks the lane at its ceiling', async () => {
    const q = queues.queue();
    await fill(q, 'a', 10);
    await lanes.weight(q, 'a', 5);
    await lanes.limit(q, 'a', 3);
    const first = await lanes.claim(q);
    expect(first).not.toBeNull();
    const turn = await lanes.wclaim(q);
    expect(turn).toHaveLength(2);
    const lane = await lanes.lane(q, 'a');
    expect(lane).toMatchObject({ active: 3, pending: 7, limit: 3, inRing: false });
    expect(await lanes.wclaim(q)).toEqual([]);
    await lanes.complete(q, turn[0].id, turn[0].attempt);
    expect((await lanes.lane(q, 'a')).inRing).toBe(true);
    expect(await lanes.wclaim(q)).toHaveLength(1);
  });

  it('clamps K by opts.max without leaving the ring', async () => {
    const q = queues.queue();
    await fill(q, 'a', 10);
    await lanes.weight(q, 'a', 6);
    expect((await lanes.wclaim(q, { max: 2 })).map(tag)).toEqual(['a0', 'a1']);
    expect((await lanes.lane(q, 'a')).inRing).toBe(true);
    expect((await lanes.wclaim(q, { max: 100 })).map(tag)).toEqual(['a2', 'a3', 'a4', 'a5', 'a6', 'a7']);
  });

  it('a weight never parks a lane and is kept by lane()', async () => {
    const q = queues.queue();
    await fill(q, 'a', 3);
    await lanes.weight(q, 'a', 1);
    expect(await lanes.lane(q, 'a')).toMatchObject({ weight: 1, inRing: true });
    await lanes.weight(q, 'a', 1000);
    expect(await lanes.lane(q, 'a')).toMatchObject({ weight: 1000, inRing: true });
    expect(await lanes.lane(q, 'unset')).toMatchObject({ weight: 1 });
  });
});
